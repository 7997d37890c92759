// What a failed connection says about itself. Node buries the useful part (ECONNREFUSED,
// ENOTFOUND, "bad port", "other side closed") in the chain of causes; both providers read it here.

export interface ConnectionCause {
  /** The system error code of the first cause that has one. */
  code?: string;
  /** The innermost message. */
  message: string;
}

export function connectionCause(error: Error): ConnectionCause {
  let code: string | undefined;
  let deepest = error;
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const candidate = (cause as { code?: unknown }).code;
    if (code === undefined && typeof candidate === "string") code = candidate;
    deepest = cause;
  }
  return { code, message: deepest.message.replace(/\.$/, "") };
}

const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_NONAME"]);

/**
 * Nothing listens there, the host does not exist, or fetch refuses the port outright: trying
 * again will not help, the address is wrong.
 */
export function isUnreachable(cause: ConnectionCause): boolean {
  return (
    (cause.code !== undefined && UNREACHABLE_CODES.has(cause.code)) || cause.message === "bad port"
  );
}

/** A server on this machine, where a refused connection means it is not running. */
export function isLocalURL(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === "localhost" || host === "[::1]" || host.startsWith("127.");
  } catch {
    return false;
  }
}
