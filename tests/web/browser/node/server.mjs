// A real OpenID Connect provider for anitrack's browser tests: node's oidc-provider
// (a certified implementation) with its development sign-in pages, on loopback.
//
//   node server.mjs CONFIG.json
//
// CONFIG names the port, the clients (client_id, client_secret, redirect_uris) and the
// accounts a person may sign in as: { "<login>": { "email": ..., "email_verified": ...,
// "preferred_username": ... } }.  The development sign-in page takes any password.
// The server prints "listening <issuer>" once it answers.
import { readFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const issuer = `http://127.0.0.1:${config.port}`;

const provider = new Provider(issuer, {
  clients: config.clients.map((client) => ({
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
    ...client,
  })),
  async findAccount(ctx, id) {
    const account = config.accounts[id];
    if (!account) return undefined;
    return {
      accountId: id,
      async claims() {
        return { sub: id, ...account };
      },
    };
  },
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['preferred_username', 'name'],
  },
  features: { devInteractions: { enabled: true } },
  pkce: { required: () => true },
  cookies: { keys: ['anitrack-test-only'] },
});
provider.proxy = false;

const server = provider.listen(config.port, '127.0.0.1', () => {
  console.log(`listening ${issuer}`);
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
