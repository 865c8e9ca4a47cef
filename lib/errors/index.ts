/** The error table, the domain error and its constructors, warnings, and the 207 helper. */
export * from './error-table';
export * from './domain-error';
export * from './dependency';
export * from './warning';
export * from './multi-status';
