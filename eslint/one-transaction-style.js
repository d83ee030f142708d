/**
 * One transaction style in the domain (ADR 0020): every exported function takes at most one
 * parameter (an options object), and a transaction is opened only by `inTransaction`, whose
 * context has no pool, so nothing called inside a transaction can write beside it.
 */
const oneOptionsObject = [
  "ExportNamedDeclaration > FunctionDeclaration[params.length>1]",
  "ExportNamedDeclaration > TSDeclareFunction[params.length>1]",
  "ExportNamedDeclaration > VariableDeclaration > VariableDeclarator > :matches(ArrowFunctionExpression, FunctionExpression)[params.length>1]",
].map((selector) => ({ selector, message: "An exported domain function takes one options object." }));

const onlyInTransaction = {
  selector: "CallExpression[callee.property.name=/^(transaction|begin)$/]",
  message: "Open a transaction with inTransaction(deps, (t) => ...); code inside it takes `t: InTransaction` (or a Pick of it).",
};

/** Where a transaction is opened otherwise: the backup archive's snapshot, on postgres.js connections of its own (see the comments there). */
const ownConnections = ["packages/domain/src/features/backups/archive-writer.ts", "packages/domain/src/features/backups/archive-thread.ts"];

export const oneTransactionStyle = [
  {
    files: ["packages/domain/src/**/*.ts"],
    ignores: ["**/*.test.ts", "packages/domain/src/platform/transaction.ts", ...ownConnections],
    rules: { "no-restricted-syntax": ["error", ...oneOptionsObject, onlyInTransaction] },
  },
  {
    files: ownConnections,
    rules: { "no-restricted-syntax": ["error", ...oneOptionsObject] },
  },
];
