// The Tool seam: a tool is a name, a description, a JSON schema for its input and a function.
// A new tool is one new file in src/tools/ that exports one of these.

import type { ToolOutput } from "../core/tool.js";

export type { FileAccess, Tool, ToolContext, ToolOutput } from "../core/tool.js";
export type { JsonSchemaObject } from "../core/tool-definition.js";

export const success = (content: string): ToolOutput => ({ content, isError: false });
export const failure = (content: string): ToolOutput => ({ content, isError: true });
