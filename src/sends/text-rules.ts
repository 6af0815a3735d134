// Text rules for outbound message fields: how characters are counted, and what counts as emoji or
// WhatsApp formatting.

// How characters are counted: WhatsApp documents its limits ("max 60 characters") in characters a
// person sees, so we count grapheme clusters (Unicode extended grapheme clusters, via
// Intl.Segmenter), not UTF-16 code units (`String#length`) or code points. "👍🏽" (emoji + skin tone,
// 4 code units), "é" written as e + U+0301 (2 code units), "🇫🇷" (two regional indicators) and
// "👨‍👩‍👧" (a ZWJ sequence) each count as 1. Code-unit counting would reject an emoji-heavy body well
// under the limit; code-point counting would still split skin tones, flags and ZWJ sequences.
// Clusters are locale-independent, so 'en' is only a placeholder locale.
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** User-perceived characters (grapheme clusters) in `s`. */
export function characterCount(s: string): number {
  let count = 0;
  for (const _ of graphemes.segment(s)) count++;
  return count;
}

/**
 * UTF-16 code units one character may take, on average over a field: the longest clusters in use
 * (a family emoji, a subdivision flag) take 11 to 14. Without it one letter carrying any number of
 * combining marks would count as one character.
 */
export const MAX_CODE_UNITS_PER_CHARACTER = 16;

/**
 * Whether `s` has more than `max` user-perceived characters. A string of at most `max` UTF-16 code
 * units cannot have more than `max` clusters, so short strings skip segmentation.
 */
export function exceedsCharacterLimit(s: string, max: number): boolean {
  if (s.length <= max) return false;
  let count = 0;
  for (const _ of graphemes.segment(s)) if (++count > max) return true;
  return false;
}

// Extended_Pictographic covers emoji (and pictographs such as © and ™, which render as emoji on
// phones); flags are pairs of regional indicators; keycaps (1️⃣, #️⃣) are an ASCII character plus
// U+20E3, which neither property matches.
const emoji = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u;

/** Whether `s` contains an emoji: Extended_Pictographic, a regional-indicator flag or a keycap. */
export function containsEmoji(s: string): boolean {
  return emoji.test(s);
}

// WhatsApp formats *bold*, _italic_, ~strikethrough~ and `code` / ```monospace```. A lone marker is
// rejected as well: whether WhatsApp pairs it depends on the surrounding text, so "has a marker" is
// the rule we can state and a client can predict. Markdown links [text](url) are rejected too.
const markdown = /[*_~`]|\[[^\]\n]*\]\([^)\n]*\)/;

/** Whether `s` contains WhatsApp formatting markers (`*`, `_`, `~`, backtick) or a `[text](url)` link. */
export function containsMarkdown(s: string): boolean {
  return markdown.test(s);
}
