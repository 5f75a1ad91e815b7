/**
 * `floorguard demo`: the record's observed system as a deterministic simulation, a naive compactor against floorguard.
 */
export { createNaiveSummarizer, naiveSummary, NAIVE_HEADING } from './naive-summarizer.js'
export { demoJson, renderDemo, DEMO_JSON_VERSION, type ArmEventJson, type ArmJson, type DemoJson } from './render.js'
export {
  ARM_NAMES,
  DEFAULT_FATE_TURN,
  DEMO_SETTINGS,
  fateOf,
  PLANTED_LABELS,
  runDemo,
  type ArmEvent,
  type ArmName,
  type ArmRun,
  type ArmRuntimeEvent,
  type DemoOptions,
  type DemoResult,
  type EventPart,
  type Fate,
} from './run.js'
export {
  DEFAULT_SEED,
  DEFAULT_TURNS,
  generateSession,
  PLANTED_ERROR,
  PLANTED_PIN,
  PLANTED_PIN_CURRENT,
  PLANTED_REGEX,
  startsTurn,
  turnOf,
  type DemoSession,
  type DemoSessionOptions,
  type PlantedItem,
  type PlantedKind,
} from './session.js'
