// Number words in prompts ("forty", "twenty-one", "a dozen", "10k", "10,000") rewritten as digits
// so the planner only deals with one form of count.

const UNITS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const TENS: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};

const WORD = `(?:${[...Object.keys(TENS), ...Object.keys(UNITS)].join('|')})`;
const WORD_NUMBER = new RegExp(`\\b(${WORD}(?:[\\s-]+${WORD})?)(?:\\s+(hundred|thousand))?(?:\\s+and\\s+(${WORD}(?:[\\s-]+${WORD})?))?\\b`, 'gi');

function wordsValue(words: string): number {
  return words
    .toLowerCase()
    .split(/[\s-]+/)
    .reduce((sum, w) => sum + (UNITS[w] ?? TENS[w] ?? 0), 0);
}

/** Rewrite number words and digit forms as plain digits, keeping every other character as it was. */
export function normaliseNumbers(text: string): string {
  return text
    .replace(/\ba\s+dozen\b/gi, '12')
    .replace(/\bdozens?\b/gi, '12')
    .replace(/\b(\d+(?:\.\d+)?)\s*k\b/gi, (_m, n: string) => String(Math.round(Number(n) * 1000)))
    .replace(/\b(\d{1,3}(?:,\d{3})+)\b(?!\.\d)/g, (m) => m.replace(/,/g, ''))
    .replace(WORD_NUMBER, (m, head: string, scale?: string, tail?: string) => {
      let n = wordsValue(head);
      if (scale === 'hundred') n *= 100;
      if (scale === 'thousand') n *= 1000;
      if (tail) n += wordsValue(tail);
      // "one" as a pronoun ("one a duplicate") stays a count of 1, which is what it means here.
      return m.length > 0 ? String(n) : m;
    });
}
