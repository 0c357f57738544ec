/** Tests on history for client tests outside the agents feature (the chat's tool steps, issue 31). */
export { backtestResult } from '../features/agents/lib/agents-test-data.ts';
