// The line a terminal redraws while a model downloads: name, bar, bytes, speed and time left,
// in the units a person reads (kB, MB, GB), so a download of a few GB says how long to wait.

const UNITS = ["B", "kB", "MB", "GB", "TB"];

/**
 * One line for a terminal to redraw with `\r`:
 * `Qwen3-4B-Q4_K_M.gguf  [#########-----------]  1.1 / 2.5 GB  42 MB/s  0:33 left`.
 * `resumedFrom` keeps the bytes of an earlier run out of the speed.
 */
export function formatProgress(
  receivedBytes: number,
  totalBytes: number | null,
  elapsedMs: number,
  options: { name?: string; resumedFrom?: number } = {},
): string {
  const fields: string[] = [];
  if (options.name) fields.push(options.name);
  const perSecond =
    elapsedMs > 0 ? ((receivedBytes - (options.resumedFrom ?? 0)) * 1000) / elapsedMs : 0;
  if (totalBytes !== null && totalBytes > 0) {
    const done = Math.min(1, receivedBytes / totalBytes);
    const filled = Math.round(done * 20);
    fields.push(`[${"#".repeat(filled)}${"-".repeat(20 - filled)}]`);
    const unit = unitFor(totalBytes);
    fields.push(`${inUnit(receivedBytes, unit)} / ${inUnit(totalBytes, unit)} ${UNITS[unit]}`);
  } else {
    const unit = unitFor(receivedBytes);
    fields.push(`${inUnit(receivedBytes, unit)} ${UNITS[unit]}`);
  }
  if (perSecond > 0) {
    const unit = unitFor(perSecond);
    fields.push(`${inUnit(perSecond, unit)} ${UNITS[unit]}/s`);
    if (totalBytes !== null) {
      fields.push(`${clock(Math.max(0, totalBytes - receivedBytes) / perSecond)} left`);
    }
  }
  return fields.join("  ");
}

function unitFor(bytes: number): number {
  let unit = 0;
  while (unit < UNITS.length - 1 && bytes >= 1000 ** (unit + 1)) unit++;
  return unit;
}

function inUnit(bytes: number, unit: number): string {
  const value = bytes / 1000 ** unit;
  return unit === 0 || value >= 10 ? String(Math.round(value)) : value.toFixed(1);
}

function clock(seconds: number): string {
  const whole = Math.ceil(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = String(whole % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}
