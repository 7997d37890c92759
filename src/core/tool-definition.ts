// A tool as the model is told about it: its name, what it does, and the JSON schema of its
// input. Tools (the Tool seam) are built from it and providers send it; it lives below both.

export interface JsonSchemaObject {
  type: "object";
  properties: Record<string, { type: string; description?: string; [key: string]: unknown }>;
  required?: string[];
  additionalProperties?: boolean;
}

export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: JsonSchemaObject;
}
