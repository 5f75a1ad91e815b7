/** The transcript layer: the format registry, readers and writers, sources, rendering and tool pairing. */
export { aiSdkFormat } from './formats/ai-sdk.js'
export { aiderFormat } from './formats/aider.js'
export { anthropicFormat } from './formats/anthropic.js'
export { claudeAgentEventsFormat } from './formats/claude-agent-events.js'
export { claudeCodeFormat } from './formats/claude-code.js'
export { codexFormat } from './formats/codex.js'
export { geminiCliFormat } from './formats/gemini-cli.js'
export { ENCRYPTED_COMPACTION, openaiResponsesFormat } from './formats/openai-responses.js'
export { openaiFormat } from './formats/openai.js'
export { sweAgentFormat } from './formats/swe-agent.js'
export { textFormat } from './formats/text.js'
export {
  DETECTION_THRESHOLD,
  type DetectFormatOptions,
  type FormatScore,
  type TranscriptFormatName,
  detectFormat,
  getFormat,
  isTranscriptFormatName,
  scoreFormats,
  transcriptFormatNames,
  transcriptFormats,
} from './registry.js'
export {
  type AppendMessagesOptions,
  type MessageRange,
  type ReadTranscriptOptions,
  appendMessages,
  readTranscript,
  sliceTranscript,
  writeTranscript,
} from './read.js'
export { HEAD_LENGTH, headOf, sourceFromString } from './source.js'
export { type CompactedRange, type WriteCompactedOptions, writeCompacted } from './write-compacted.js'
export {
  MESSAGE_SEPARATOR,
  PART_SEPARATOR,
  type PartSpan,
  type RenderedMessage,
  pairToolCalls,
  renderMessage,
  renderPart,
  renderSegment,
  stableJson,
} from './render.js'
export { MAX_JSON_DEPTH, assertJsonDepth, parseJson } from './json.js'
