// A real PostgreSQL for the tests, started by them (bench/postgres-server.js, shared with the
// benchmark): each test takes a database of its own, and the file stops the server at the end.
export { startPostgres, type Postgres } from '../../bench/postgres-server.js';
