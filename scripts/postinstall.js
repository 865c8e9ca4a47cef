// `npm ci` builds dist/ (what the Procfile runs) when the dev dependencies are there. An install
// without them (`npm ci --omit=dev` on a host that received a built dist/) has no compiler: it
// skips the build instead of failing the install.
const { execSync } = require('node:child_process');

try {
  require.resolve('typescript');
} catch {
  console.log('postinstall: no TypeScript (installed without dev dependencies): dist/ is not rebuilt');
  process.exit(0);
}
execSync('npm run build', { stdio: 'inherit' });
