import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The order of the e2e files: vitest's own (slowest and failed first, from its cache), except the
 * fuzz spec, which always runs last. The fuzzer's administrator run reuses ids it reads from real
 * answers (schemathesis' feedback loop) and so deletes real vocabulary entries and records; run
 * before another spec, it would change the fixtures that spec counts (the 17 affiliations of
 * `vocabularies.test.ts`, for one), and whether a run passed would depend on the cache's order.
 */
export default class E2eSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return [...sorted.filter((f) => !isLast(f)), ...sorted.filter(isLast)];
  }
}

function isLast(f: TestSpecification): boolean {
  return /[\\/]e2e[\\/]specs[\\/]fuzz[\\/]/.test(f.moduleId);
}
