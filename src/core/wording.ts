// Numbers in tool results, written the same way by every tool: "12,345", "1 line", "2 lines".

/**
 * Digits in groups of three. Not toLocaleString("en-US"): its first call loads ICU's number
 * formatting, some 11-14 ms and 8 MB of start-up, and each later call builds a formatter anew.
 */
export function count(n: number): string {
  return Math.round(n)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${count(n)} ${n === 1 ? noun : nouns}`;
}
