import { defineFamily } from './types.js';

const modpackJob = { kind: 'job', poll: '/servers/{server_id}/addons/modpack/jobs/{job_id}' } as const;

// Document 3, "Addons". Provider keys: provider_a (mods, datapacks, resourcepacks), provider_b
// (modpacks, Bedrock addons), provider_c (plugins). Unnamed body fields (slug, project ids,
// source, type, software, version, filename) are sent with -f/-F.
export default defineFamily({
  name: 'addons',
  summary: 'Installed plugins, mods and datapacks; installs, modpacks and versions',
  operations: [
    {
      method: 'GET', path: '/servers/{server_id}/addons', command: 'addons list',
      columns: ['filename', 'type', 'enabled', 'size', 'update_available', 'modified_at'], idField: 'filename',
      summary: 'Installed plugins, mods and datapacks',
      example: 'gsh addons list -s lobby --no-detailed',
      scope: 'servers:addons:read', permission: 'file.read',
      query: [{ name: 'detailed', type: 'boolean', default: true,
        description: 'true: matched by file hash with metadata and update availability; false: bare listing' }],
    },
    {
      method: 'POST', path: '/servers/{server_id}/addons/configure', command: 'addons configure',
      summary: 'Auto-configure a supported plugin by slug (port, templated config, maybe download)',
      example: 'gsh addons configure -s lobby -f slug=geyser',
      scope: 'servers:addons:write', permission: 'file.create',
    },
    {
      method: 'POST', path: '/servers/{server_id}/addons/dependencies', command: 'addons dependencies',
      summary: 'Marketplace metadata for a list of project ids (unresolvable ids dropped)',
      example: 'gsh addons dependencies -s lobby -f \'ids[]=P7dR8mSH\'',
      scope: 'servers:addons:read', permission: 'file.read',
    },
    {
      method: 'POST', path: '/servers/{server_id}/addons/install', command: 'addons install',
      summary: 'Install the latest compatible version with required dependencies (mod, plugin, datapack)',
      example: 'gsh addons install -s lobby -f source=provider_c -f project_id=1234 -f type=plugin',
      scope: 'servers:addons:write', permission: 'file.update',
    },
    {
      method: 'POST', path: '/servers/{server_id}/addons/modpack', command: 'addons modpack install',
      summary: 'Install a modpack in the background (202 with a job)',
      example: 'gsh addons modpack install -s lobby -f project_id=abc --mode clean --wait',
      scope: 'servers:addons:write', permission: { allOf: ['file.update'], byValue: { field: 'mode', values: { clean: ['file.delete'] } } },
      body: [{ name: 'mode', type: 'string', choices: ['clean'], open: true,
        description: 'clean also needs file.delete' }],
      wait: modpackJob,
    },
    {
      method: 'GET', path: '/servers/{server_id}/addons/modpack/jobs/{job_id}', command: 'addons modpack job',
      summary: 'A modpack job: state, progress, warnings, errors',
      example: 'gsh addons modpack job -s lobby job_123 --wait',
      scope: 'servers:addons:read', permission: 'file.read',
      params: [{ name: 'job_id', description: 'Modpack job id from addons modpack install' }],
      wait: modpackJob,
    },
    {
      method: 'POST', path: '/servers/{server_id}/addons/set-version', command: 'addons set-version',
      summary: 'Record a software and version from the catalogue (Bedrock runtimes reinstall)',
      example: 'gsh addons set-version -s lobby -f software=paper -f version=1.21.4',
      scope: 'servers:addons:write', permission: 'file.create',
    },
    {
      method: 'POST', path: '/servers/{server_id}/addons/toggle', command: 'addons toggle',
      summary: 'Enable or disable an addon via the .disabled suffix (restart needed)',
      example: 'gsh addons toggle -s lobby -f filename=worldedit.jar -f type=plugin',
      scope: 'servers:addons:write', permission: 'file.update',
    },
    {
      method: 'GET', path: '/servers/{server_id}/software/versions', command: 'addons software-versions',
      columns: ['software', 'versions'], idField: 'software',
      summary: 'Version catalogue: all software, one software\'s versions, or a version\'s builds',
      example: 'gsh addons software-versions -s lobby --software paper --software-version 1.21.4',
      scope: 'servers:addons:read', permission: 'file.read',
      query: [
        { name: 'software', type: 'string', description: 'Software key; alone lists its versions' },
        { name: 'version', type: 'string', flag: 'software-version', description: 'With software: list that version\'s builds' },
      ],
    },
  ],
});
