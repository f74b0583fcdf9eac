// npm run bench: what a record costs against a bare undici loop (bench/speed.js), or with --scale,
// how a campaign of 1,000,000 and 10,000,000 records runs end to end (bench/scale.js).
// Usage: node bench/run.js [records=200000] [--json] [--skip-million | --rss-records=N] [--node=PATH]
//        node bench/run.js --scale[=N,N…] [--json] [--node=PATH]
// --node=PATH (repeatable, or BENCH_NODES=PATH:PATH): other Node.js binaries (or the folders
// that hold them) on which the memory rows run again; see docs/benchmark.md.
const scale = process.argv.slice(2).some((arg) => arg === '--scale' || arg.startsWith('--scale='));
await import(scale ? './scale.js' : './speed.js');
