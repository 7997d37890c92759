// The JSON schemas of the headless output (schemas/), compiled once: what scripts may rely on.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Ajv } from "ajv";

const schema = (name: string) =>
  JSON.parse(readFileSync(resolve(import.meta.dirname, "../../schemas", name), "utf8"));
const ajv = new Ajv({ allErrors: true, strict: false });
ajv.addSchema(schema("result.schema.json"), "result.schema.json");

/** One line of --output-format stream-json before the result line. */
export const validEvent = ajv.compile(schema("stream-event.schema.json"));
/** The result object of --output-format json (and the last stream-json line). */
export const validResult = ajv.compile({ $ref: "result.schema.json" });
