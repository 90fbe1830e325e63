/**
 * Caps on what a scanner may hold and what it scans. They bound compile time, memory and the
 * size of one linear pass, so a saved scanner cannot become a denial of service.
 */
export const MAX_PATTERNS = 100;
export const MAX_PATTERN_LENGTH = 1_000;
export const MAX_KEYWORDS = 1_000;
export const MAX_KEYWORD_LENGTH = 200;
/** Same as the gateway's default body limit: a text larger than a request body is not scanned. */
export const MAX_SCAN_TEXT_BYTES = 1_048_576;
/**
 * Matches one scan may report. Bounds the result's size and the work of texts that match
 * everywhere (1 MB of "a" against the pattern "a"): a bulk paste of personal data is refused
 * rather than redacted.
 */
export const MAX_SCAN_MATCHES = 10_000;
/**
 * Each RE2 search is linear, but collecting every match of a pattern like `a.*b|a` searches to the
 * end of the text once per match: quadratic in the text. Past this budget the scan stops (one
 * search beyond it at most, a few milliseconds on 1 MB). Typical scans take well under 1 ms.
 */
export const SCAN_TIME_BUDGET_MS = 500;
