// The import rules of src/, checked by `npm run deps` (part of `npm test`): no circles, and each
// folder imports only the folders below it. This list is the one statement of the layering.
/**
 * @type {string[][]} Folders of src/ (and its entry files), top first; each may import those on
 * later lines. A folder is on a line of its own only where an import needs it above another.
 */
const LAYERS = [
  ['cli', 'index.ts'], // the command line (the only code that prints or exits); the API's entry
  ['campaign'], // the steps of a campaign put together, no terminal
  ['dlr'], // delivery reports, folded into report files
  ['report'], // report formats, reader, summary, the HTML page (its timeline hears the send's events)
  ['send'], // the send loop: batches, attempts, retries, rate
  ['journal', 'validate', 'config'], // campaign state; the validation pass and spool; settings
  ['message', 'simulator'], // one record → one RestSmsMessageReq; the gateway simulator
  ['input', 'gateway'], // readers of CSV and JSON; the wire, the HTTP client, an answer's outcome
  ['shared'], // small pure helpers and the error classes: the ground
];

/** Rooms inside a folder: only their index.ts is reached from outside them. */
const ROOMS = ['campaign/steps', 'campaign/follow-up', 'journal/folder', 'journal/postgres'];

const folders = LAYERS.flat();
/** A folder's files, or an entry file itself. */
const under = (names) =>
  `^src/(${names.map((name) => (name.endsWith('.ts') ? `${name.replace('.', '\\.')}$` : `${name}/`)).join('|')})`;

const layerRules = LAYERS.flatMap((line, index) =>
  line.map((folder) => {
    const above = LAYERS.slice(0, index).flat();
    const sideways = line.filter((other) => other !== folder);
    const forbidden = [...above, ...sideways];
    return forbidden.length === 0
      ? undefined
      : {
          name: `layer-${folder}`,
          comment: `src/${folder} imports only the folders below it (${forbidden.join(', ')} are not)`,
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
      comment: `Every file of src/ lives in a folder of the layering (or is an entry): ${folders.join(', ')}.`,
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
    {
      name: 'stores-apart',
      comment:
        'The two campaign stores share only the neutral modules of src/journal/, never each other.',
      severity: 'error',
      from: { path: '^src/journal/(folder|postgres)/' },
      to: { path: '^src/journal/(folder|postgres)/', pathNot: '^src/journal/$1/' },
    },
    {
      name: 'journal-neutral',
      comment:
        'The modules of src/journal/ beside the stores speak of any store: only open-store.ts names one.',
      severity: 'error',
      from: { path: '^src/journal/[^/]+\\.ts$', pathNot: '^src/journal/open-store\\.ts$' },
      to: { path: '^src/journal/(folder|postgres)/' },
    },
    ...layerRules,
    ...ROOMS.map((room) => ({
      name: `room-${room.replace('/', '-')}`,
      comment: `src/${room}/ is reached from outside only through its index.ts`,
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/${room}/` },
      to: { path: `^src/${room}/`, pathNot: `^src/${room}/index\\.ts$` },
    })),
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
