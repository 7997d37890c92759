// Pages fetched in the last minutes, converted, so that asking for the next part of a long page
// (web_fetch with an offset) reads it from here instead of fetching it again. Brief and small on
// purpose: a page can change, and a converted page can be several megabytes of text.

export const CACHE_MINUTES = 15;
const MAX_PAGES = 10;

export class PageCache<Page> {
  private readonly pages = new Map<string, { page: Page; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  get(url: string): Page | undefined {
    const kept = this.pages.get(url);
    if (!kept) return undefined;
    if (this.now() - kept.at > CACHE_MINUTES * 60_000) {
      this.pages.delete(url);
      return undefined;
    }
    return kept.page;
  }

  put(url: string, page: Page): void {
    this.pages.delete(url);
    this.pages.set(url, { page, at: this.now() });
    // A Map iterates in insertion order: the first key is the oldest page.
    const oldest = this.pages.keys().next().value;
    if (this.pages.size > MAX_PAGES && oldest !== undefined) this.pages.delete(oldest);
  }
}
