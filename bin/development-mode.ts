/**
 * Imported first by bin/start.ts, before anything reads the configuration (some modules read it
 * as they load): `--development`, which `npm start` passes, is the one switch into development
 * mode. It sets NODE_ENV=development for npm start and its children, unless NODE_ENV is set.
 */
export const developmentSwitch = process.argv.includes('--development');
if (developmentSwitch) process.env.NODE_ENV ??= 'development';
