/** Flattens whitespace and cuts `text` to `width` characters, ending with an ellipsis when cut. */
export function clip(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ')
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`
}
