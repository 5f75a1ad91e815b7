export {
  type TestTranscriptFormatOptions,
  type TranscriptFixtureExpectation,
  type TranscriptFormatFixture,
  testTranscriptFormat,
} from './transcript-format.js'
export * from './summarizer.js'
