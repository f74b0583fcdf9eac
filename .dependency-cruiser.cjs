// The import rules of src/, checked by `npm run deps` (part of `npm test`): no circles, and each
// folder imports only the folders below it. This list is the one statement of the layering.
/** @type {string[][]} Folders of src/, top first; a folder may import those on later lines. */
const LAYERS = [
  ['cli'], // commands, flags and help, terminal output: the only code that prints or exits
  ['campaign'], // prepare, the send pass, follow-ups: the steps put together, no terminal
  ['send', 'dlr', 'report'], // the send loop; delivery reports; report formats, reader, summary
  ['journal'], // the campaign's state folder: manifest, journal, resume, locks
  ['validate'], // the validation pass: reader, worker pool, checker, chunks, spool, plan
  ['config'], // settings table, config file, environment, merge
  ['message'], // one record → one RestSmsMessageReq, or the reasons it cannot be sent
  ['input', 'simulator'], // readers of CSV and JSON; the gateway simulator
  ['gateway'], // wire types, the HTTP client, an answer → its outcome
  ['shared'], // small pure helpers and the error classes: the ground
];

/** Folders of one line that may import one another, one way only. */
const SIBLINGS = {
  dlr: ['report'], // delivery reports are folded into report files
};

const folders = LAYERS.flat();
const under = (names) => `^src/(${names.join('|')})/`;

const layerRules = LAYERS.flatMap((line, index) =>
  line.map((folder) => {
    const above = LAYERS.slice(0, index).flat();
    const sideways = line.filter(
      (other) => other !== folder && !(SIBLINGS[folder] ?? []).includes(other),
    );
    const forbidden = [...above, ...sideways];
    return forbidden.length === 0
      ? undefined
      : {
          name: `layer-${folder}`,
          comment: `src/${folder}/ imports only the folders below it (${forbidden.join(', ')} are not)`,
          severity: 'error',
          from: { path: under([folder]) },
          to: { path: under(forbidden) },
        };
  }),
).filter((rule) => rule !== undefined);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No two files import each other, directly or round a loop (type imports included).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'folder-in-a-layer',
      comment: `Every file of src/ lives in a folder of the layering: ${folders.join(', ')}.`,
      severity: 'error',
      from: { path: '^src/', pathNot: under(folders) },
      to: {},
    },
    {
      name: 'ui-below-commands',
      comment: 'cli/ui/ renders; it does not import the commands or the entry point.',
      severity: 'error',
      from: { path: '^src/cli/ui/' },
      to: { path: '^src/cli/(commands/|main\\.ts)' },
    },
    {
      name: 'src-not-test',
      comment: 'Code under src/ never imports the tests or the benchmarks.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves to a file or an installed package.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
