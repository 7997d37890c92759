// Numbers as people read them ("12,345"). One shared formatter: creating one per call is slow.

const numbers = new Intl.NumberFormat("en");

export function formatCount(value: number): string {
  return numbers.format(value);
}
