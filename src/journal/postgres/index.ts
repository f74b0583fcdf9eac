// Campaign state in PostgreSQL: the store a state URL names (reached from outside only here).
export { DatabaseStore, type DatabaseSettings } from './store.js';
