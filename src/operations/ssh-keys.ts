import { defineFamily } from './types.js';

// Document 2, "Account": the account's SSH keys. Body field names ("public key and name") are
// not shown in the contract: send them with -f.
export default defineFamily({
  name: 'ssh-keys',
  summary: 'SSH keys of the account (SFTP/SSH to every server)',
  operations: [
    {
      method: 'GET', path: '/account/ssh-keys', command: 'ssh-keys list',
      columns: ['id', 'created_at'],
      summary: 'Account SSH keys, each with its public key and SHA-256 fingerprint',
      example: 'gsh ssh-keys list --all',
      scope: 'account:ssh-keys:read', paging: 'offset',
    },
    {
      method: 'POST', path: '/account/ssh-keys', command: 'ssh-keys create',
      summary: 'Add a public key with a name; validated and fingerprinted (409 duplicate fingerprint)',
      example: 'gsh ssh-keys create -f name=laptop -f public_key="$(cat ~/.ssh/id_ed25519.pub)"',
      scope: 'account:ssh-keys:write',
    },
    {
      method: 'DELETE', path: '/account/ssh-keys/{key_id}', command: 'ssh-keys delete',
      summary: 'Remove one of the caller\'s SSH keys',
      example: 'gsh ssh-keys delete key_123 --yes',
      scope: 'account:ssh-keys:write', destructive: true,
      params: [{ name: 'key_id', description: 'SSH key id from ssh-keys list' }],
    },
  ],
});
