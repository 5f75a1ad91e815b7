/**
 * Tokenizer contract: counts the tokens of a string the way a model's tokenizer would.
 *
 * Special-token strings such as `<|endoftext|>` inside transcript text are ordinary text: a
 * transcript that quotes them must be counted, never rejected.
 */
export interface TokenizerV1 {
  readonly specificationVersion: 'v1'
  /** Registry name, e.g. `o200k_base`. */
  readonly name: string
  /** Whether counts are exact for some model (false for heuristics such as `approx`). */
  readonly exact: boolean
  /** Counts the tokens of `text`. Must be pure and deterministic. */
  count(text: string): number
}
