// A test file's own temp folder and the simulators it starts, both cleaned up once the file is done.
import { realpath } from 'node:fs/promises';
import { afterAll, beforeAll } from 'vitest';
import {
  startSimulator,
  type Simulator,
  type SimulatorOptions,
} from '../../src/simulator/index.js';
import { tempDir } from './files.js';

export interface SuiteFolder {
  /** The temp folder. */
  readonly path: string;
  /** The temp folder with symlinks resolved, as the binary's process.cwd() reports it. */
  readonly root: string;
  /** A simulator stopped when the file is done. */
  simulator(options?: SimulatorOptions): Promise<Simulator>;
}

/** Call at the top of a test file: the folder exists from its first test to its last. */
export function suiteFolder(): SuiteFolder {
  let dir: Awaited<ReturnType<typeof tempDir>> | undefined;
  let root = '';
  const simulators: Simulator[] = [];
  beforeAll(async () => {
    dir = await tempDir();
    root = await realpath(dir.path);
  });
  afterAll(async () => {
    await Promise.all(simulators.map((s) => s.stop()));
    await dir?.remove();
  });
  return {
    get path() {
      if (!dir) throw new Error('suiteFolder(): used before the file started');
      return dir.path;
    },
    get root() {
      return root;
    },
    async simulator(options) {
      const sim = await startSimulator(options);
      simulators.push(sim);
      return sim;
    },
  };
}
