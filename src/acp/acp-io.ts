// The editor as a session's SessionIO: every question ask mode asks, and plan mode's plan, goes
// to the client as `session/request_permission` on the tool call that raised it; notices are
// log lines on stderr, since stdout carries the protocol alone.
// Permission requests: https://agentclientprotocol.com/protocol/v1/tool-calls#requesting-permission

import { randomUUID } from "node:crypto";
import type {
  AgentContext,
  PermissionOption,
  RequestPermissionResponse,
  ToolCallUpdate,
} from "@agentclientprotocol/sdk";
import type { SessionIO } from "../assembly/session-io.js";
import type { PermissionAnswer, PermissionQuestion } from "../permissions/policy.js";
import type { PlanVerdict } from "../planning/exit-plan-mode.js";
import { permissionQuestion } from "../terminal/ask.js";

/** What the IO needs to know of the session it asks for, once it has started. */
export interface AskingTurn {
  sessionId: string;
  /** The call, announced and not yet finished, that a question about `tool` is about. */
  callFor(tool: string): ToolCallUpdate | null;
  /** The running turn's signal: a cancelled turn answers its open question "cancelled". */
  signal(): AbortSignal | undefined;
  /** Tells the editor that a call it was asked about now runs. */
  running(toolCallId: string): void;
}

export function log(sentence: string): void {
  process.stderr.write(`agentloop: ${sentence}\n`);
}

export function acpIO(client: AgentContext, turn: () => AskingTurn | null): SessionIO {
  // "Reject always": the same question is answered no, without asking, for the rest of the session.
  const rejected = new Set<string>();

  const ask = async (
    toolCall: ToolCallUpdate,
    options: PermissionOption[],
  ): Promise<string | null> => {
    const current = turn();
    if (!current) return null;
    const signal = current.signal();
    try {
      const answer: RequestPermissionResponse = await client.request(
        "session/request_permission",
        { sessionId: current.sessionId, toolCall, options },
        { cancellationSignal: signal, stopWaitingOnCancel: true },
      );
      return answer.outcome.outcome === "selected" ? answer.outcome.optionId : null;
    } catch (error) {
      if (!signal?.aborted) log(`the editor did not answer a permission request: ${String(error)}`);
      return null;
    }
  };

  return {
    async askPermission(question: PermissionQuestion): Promise<PermissionAnswer> {
      const key = `${question.tool}\u0000${JSON.stringify(question.action)}\u0000${question.rules.join(",")}`;
      if (rejected.has(key)) return { no: "The user rejected this kind of call for the session." };
      // A subagent's calls are not shown in the editor: its question stands on its own.
      const call = turn()?.callFor(question.tool) ?? {
        toolCallId: `question-${randomUUID()}`,
        title: permissionQuestion(question).headline,
      };
      const always = question.rules.length > 0;
      const options: PermissionOption[] = [
        { optionId: "allow_once", name: "Allow", kind: "allow_once" },
        ...(always
          ? [
              {
                optionId: "allow_always",
                name: `Always allow ${question.rules.join(", ")}`,
                kind: "allow_always" as const,
              },
            ]
          : []),
        { optionId: "reject_once", name: "Reject", kind: "reject_once" },
        { optionId: "reject_always", name: "Always reject", kind: "reject_always" },
      ];
      const reason = question.reason
        ? { title: `${call.title ?? question.tool} (${question.reason})` }
        : {};
      const chosen = await ask({ ...call, ...reason }, options);
      if (chosen === "allow_once" || chosen === "allow_always") {
        turn()?.running(call.toolCallId);
        return chosen === "allow_once" ? "yes" : "always";
      }
      if (chosen === "reject_always") rejected.add(key);
      return chosen === null ? "interrupted" : "no";
    },

    async approvePlan(plan: string, file: string): Promise<PlanVerdict> {
      const call = turn()?.callFor("exit_plan_mode") ?? { toolCallId: "exit-plan-mode" };
      const chosen = await ask(
        {
          ...call,
          title: `Approve the plan in ${file}?`,
          content: [{ type: "content", content: { type: "text", text: plan } }],
        },
        [
          { optionId: "ask", name: "Approve, and ask before changes", kind: "allow_once" },
          {
            optionId: "auto",
            name: "Approve, and change files without asking",
            kind: "allow_always",
          },
          { optionId: "keep", name: "Keep planning", kind: "reject_once" },
        ],
      );
      if (chosen === "ask" || chosen === "auto") return { kind: "approved", mode: chosen };
      if (chosen === "keep") return { kind: "rejected", feedback: "" };
      return { kind: "interrupted" };
    },

    notice: log,
    repaired: (description) => log(`repaired the history: ${description}`),
    progress: process.stderr,
  };
}
