import { defineFamily } from './types.js';

// Document 3, "Operation families that are only named" ("Billing"): no scope, permission,
// parameter or body is shown (account:billing:read/write exist; no mapping is stated).
export default defineFamily({
  name: 'billing',
  summary: 'Account billing, balance, documents, pricing and top-ups',
  operations: [
    {
      method: 'GET', path: '/account/billing', command: 'billing get',
      summary: 'Billing overview of the account',
      example: 'gsh billing get',
    },
    {
      method: 'GET', path: '/account/billing/balance', command: 'billing balance',
      summary: 'Account balance',
      example: 'gsh billing balance',
    },
    {
      method: 'GET', path: '/account/billing/documents', command: 'billing documents',
      summary: 'Billing documents',
      example: 'gsh billing documents',
    },
    {
      method: 'GET', path: '/account/billing/pricing', command: 'billing pricing',
      summary: 'Pricing',
      example: 'gsh billing pricing',
    },
    {
      method: 'GET', path: '/account/billing/pricing/catalog', command: 'billing catalog',
      summary: 'The pricing catalogue',
      example: 'gsh billing catalog --json',
    },
    {
      method: 'POST', path: '/account/billing/top-up', command: 'billing top-up',
      summary: 'Create a hosted checkout session that adds funds',
      example: 'gsh billing top-up -F amount=10',
    },
  ],
});
