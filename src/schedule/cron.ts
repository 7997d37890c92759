// Five-field cron expressions (minute hour day-of-month month day-of-week), read in local time,
// as Claude Code's cron tools take them: `*`, numbers, ranges `1-5`, lists `1,15`, steps `*/10`
// and `0-30/5`. Day-of-week runs 0-7 with both 0 and 7 Sunday. As in cron, when both day fields
// are restricted, a day matches when either does.

import { ConfigError } from "../core/errors.js";

export interface Cron {
  readonly expression: string;
  /** The day (month, day of month, day of week) of `date` matches. */
  dayMatches(date: Date): boolean;
  hourMatches(hour: number): boolean;
  minuteMatches(minute: number): boolean;
}

const FIELDS = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  { name: "day of week", min: 0, max: 7 },
] as const;

/** Reads an expression; a ConfigError names what is wrong with it. */
export function parseCron(expression: string): Cron {
  const words = expression.trim().split(/\s+/);
  if (words.length !== 5) {
    throw new ConfigError(
      `"${expression}" is not a cron expression: it needs five fields (minute hour day-of-month month day-of-week), such as "*/5 * * * *".`,
    );
  }
  const [minutes, hours, days, months, weekdays] = words.map((word, index) =>
    parseField(word, FIELDS[index] as (typeof FIELDS)[number], expression),
  ) as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  if (weekdays.has(7)) weekdays.add(0);
  const anyDay = words[2] === "*";
  const anyWeekday = words[4] === "*";
  return {
    expression: words.join(" "),
    hourMatches: (hour) => hours.has(hour),
    minuteMatches: (minute) => minutes.has(minute),
    dayMatches(date) {
      if (!months.has(date.getMonth() + 1)) return false;
      const day = days.has(date.getDate());
      const weekday = weekdays.has(date.getDay());
      if (anyDay || anyWeekday) return day && weekday;
      return day || weekday;
    },
  };
}

/** The first minute after `after` that the expression matches, or null within a year and a day. */
export function nextMatch(cron: Cron, after: number): number | null {
  const date = new Date(after);
  date.setSeconds(0, 0);
  date.setMinutes(date.getMinutes() + 1);
  const limit = after + 366 * 24 * 60 * 60 * 1000;
  // A day or an hour that cannot match is skipped whole: a yearly job is found in ~400 steps.
  while (date.getTime() <= limit) {
    if (!cron.dayMatches(date)) {
      date.setHours(24, 0, 0, 0);
    } else if (!cron.hourMatches(date.getHours())) {
      date.setHours(date.getHours() + 1, 0, 0, 0);
    } else if (!cron.minuteMatches(date.getMinutes())) {
      date.setMinutes(date.getMinutes() + 1);
    } else {
      return date.getTime();
    }
  }
  return null;
}

function parseField(word: string, field: (typeof FIELDS)[number], expression: string): Set<number> {
  const values = new Set<number>();
  const bad = (why: string) =>
    new ConfigError(`"${expression}": the ${field.name} field "${word}" ${why}.`);
  for (const item of word.split(",")) {
    const [range = "", stepText] = item.split("/");
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw bad("has a step that is not a whole number");
    let low: number = field.min;
    let high: number = field.max;
    if (range !== "*") {
      const [first = "", last] = range.split("-");
      low = Number(first);
      high = last === undefined ? (stepText === undefined ? low : field.max) : Number(last);
      if (first === "" || !Number.isInteger(low) || !Number.isInteger(high)) {
        throw bad("is not a number, a range or *");
      }
      if (low < field.min || high > field.max || low > high) {
        throw bad(`is outside ${field.min}-${field.max}`);
      }
    }
    for (let value = low; value <= high; value += step) values.add(value);
  }
  return values;
}
