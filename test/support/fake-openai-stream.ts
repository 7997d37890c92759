// How the fake OpenAI server writes a scripted turn: as Chat Completions chunks
// (fake-openai-chunks.ts) or Responses API events (fake-openai-responses.ts), each a list of
// SSE messages, sent whole, slowly, or broken off in the middle of the last block the way the
// faults of a real connection break them.

import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { type FakeReply, replyChunks } from "./fake-openai-chunks.js";
import { type ReasoningRegistry, responsesEvents } from "./fake-openai-responses.js";

export type FakeTurn =
  | ({ kind: "reply" } & FakeReply)
  | {
      kind: "http_error";
      status: number;
      message: string;
      /** OpenAI's error code, such as "context_length_exceeded" or "model_not_found". */
      code?: string;
      headers?: Record<string, string>;
    }
  /** A 200 whose event stream ends before a single chunk. */
  | { kind: "no_chunks" }
  /** Sends the reply up to the middle of its last block, then nothing more. */
  | ({ kind: "stall" } & FakeReply)
  /** Sends the reply up to the middle of its last block, then destroys the socket. */
  | ({ kind: "reset" } & FakeReply)
  /** Sends the reply up to the middle of its last block, then an error in the stream. */
  | ({ kind: "sse_error"; message: string } & FakeReply)
  /**
   * Sends the reply up to the middle of its last block, then ends it as failed: Responses'
   * `response.failed` with an error code (Chat Completions has no such event: an SSE error).
   */
  | ({ kind: "failed"; code: string; message: string } & FakeReply);

type StreamedTurn = Exclude<FakeTurn, { kind: "http_error" }>;

/** A reply as SSE messages, written out whole, and how each protocol ends or breaks one. */
interface Frames {
  frames: string[];
  /** How many frames reach the middle of the last block, for cut-off faults. */
  middle: number;
  /** Sent after the last frame of a whole reply ("" when nothing is). */
  end: string;
  /** An error reported inside the stream after its 200. */
  error(message: string): string;
  /** The reply ended as failed, with an error code. */
  failed(code: string, message: string): string;
}

export function chatFrames(
  turn: StreamedTurn,
  includeUsage: boolean,
  promptTokens?: number,
): Frames {
  const data = (value: object) => `data: ${JSON.stringify(value)}\n\n`;
  const error = (message: string, code: string | null = null) =>
    data({ error: { message, type: "server_error", param: null, code } });
  if (turn.kind === "no_chunks") return { frames: [], middle: 0, end: "", error, failed: error };
  const { chunks, middleOfLastBlock } = replyChunks(turn, includeUsage, promptTokens);
  return {
    frames: chunks.map(data),
    middle: middleOfLastBlock,
    end: "data: [DONE]\n\n",
    error,
    failed: (code, message) => error(message, code),
  };
}

export function responsesFrames(
  turn: StreamedTurn,
  body: Record<string, unknown>,
  reasoning: ReasoningRegistry,
  promptTokens?: number,
): Frames {
  const frame = (type: string, value: object) =>
    `event: ${type}\ndata: ${JSON.stringify(value)}\n\n`;
  const error = (message: string) =>
    frame("error", { type: "error", code: "server_error", message, param: null });
  const failed = (code: string, message: string) =>
    frame("response.failed", {
      type: "response.failed",
      response: { object: "response", status: "failed", error: { code, message }, output: [] },
    });
  if (turn.kind === "no_chunks") return { frames: [], middle: 0, end: "", error, failed };
  const { events, middleOfLastItem } = responsesEvents(turn, body, reasoning, promptTokens);
  return {
    frames: events.map(([type, value]) => frame(type, value)),
    middle: middleOfLastItem,
    end: "",
    error,
    failed,
  };
}

export function streamTurn(res: ServerResponse, turn: StreamedTurn, stream: Frames) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const firstHalf = stream.frames.slice(0, stream.middle);
  switch (turn.kind) {
    case "no_chunks":
      res.end();
      return;
    case "reply":
      if (turn.chunkDelayMs) return sendSlowly(res, stream, turn.chunkDelayMs);
      for (const frame of stream.frames) res.write(frame);
      res.end(stream.end);
      return;
    case "stall":
      res.flushHeaders();
      for (const frame of firstHalf) res.write(frame);
      return;
    case "reset":
      firstHalf.forEach((frame, index) => {
        res.write(frame, index === firstHalf.length - 1 ? () => res.socket?.destroy() : undefined);
      });
      return;
    case "sse_error":
      for (const frame of firstHalf) res.write(frame);
      res.end(stream.error(turn.message));
      return;
    case "failed":
      for (const frame of firstHalf) res.write(frame);
      res.end(stream.failed(turn.code, turn.message));
      return;
  }
}

async function sendSlowly(res: ServerResponse, stream: Frames, delayMs: number) {
  res.flushHeaders();
  for (const frame of stream.frames) {
    await sleep(delayMs);
    res.write(frame);
  }
  res.end(stream.end);
}
