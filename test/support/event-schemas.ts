// Validators for the JSON that headless runs print: one stream-json event, and the result object.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Ajv } from "ajv";

const schema = (name: string) =>
  JSON.parse(readFileSync(resolve(import.meta.dirname, "../../schemas", name), "utf8"));
const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addSchema(schema("result.schema.json"), "result.schema.json");

export const validEvent = ajv.compile(schema("stream-event.schema.json"));
export const validResult = ajv.compile({ $ref: "result.schema.json" });
