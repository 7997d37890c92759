// Runs an async generator to the end, keeping what it yielded and what it returned.

export async function drain<Event, Result>(
  generator: AsyncGenerator<Event, Result>,
): Promise<{ events: Event[]; result: Result }> {
  const events: Event[] = [];
  while (true) {
    const step = await generator.next();
    if (step.done) return { events, result: step.value };
    events.push(step.value);
  }
}
