// Numbers in tool results, written the same way by every tool: "12,345", "1 line", "2 lines".

export function count(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${count(n)} ${n === 1 ? noun : nouns}`;
}
