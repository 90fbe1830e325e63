/**
 * The syntax tree the evaluator runs: only the forms the language has. acorn's tree is translated
 * into this one (see `parse-expression.ts`), so nothing the language leaves out can reach evaluation.
 * `start` is the node's offset in the expression text, for error messages.
 */
export type ExpressionNode =
  | { kind: 'literal'; start: number; value: undefined | null | boolean | number | string }
  | { kind: 'template'; start: number; quasis: readonly string[]; expressions: readonly ExpressionNode[] }
  | { kind: 'identifier'; start: number; name: string }
  | { kind: 'array'; start: number; elements: readonly ElementNode[] }
  | { kind: 'object'; start: number; entries: readonly EntryNode[] }
  // `keyStart`: where the property is written, which is where a failed read is reported.
  | {
      kind: 'member';
      start: number;
      keyStart: number;
      object: ExpressionNode;
      property: PropertyNode;
      optional: boolean;
    }
  | { kind: 'call'; start: number; callee: ExpressionNode; args: readonly ExpressionNode[]; optional: boolean }
  // The boundary an optional chain (`a?.b.c`) short-circuits to.
  | { kind: 'chain'; start: number; expression: ExpressionNode }
  | { kind: 'unary'; start: number; operator: UnaryOperator; argument: ExpressionNode }
  | { kind: 'binary'; start: number; operator: BinaryOperator; left: ExpressionNode; right: ExpressionNode }
  | { kind: 'logical'; start: number; operator: LogicalOperator; left: ExpressionNode; right: ExpressionNode }
  | { kind: 'conditional'; start: number; test: ExpressionNode; consequent: ExpressionNode; alternate: ExpressionNode };

/** `a.b` has a fixed name; `a[expr]` a computed one. */
export type PropertyNode = { fixed: string } | { computed: ExpressionNode };

export type ElementNode = { spread: boolean; value: ExpressionNode };

export type EntryNode = { key: string; value: ExpressionNode } | { spread: ExpressionNode };

export type UnaryOperator = '!' | '-' | '+' | 'typeof';

export type BinaryOperator = '==' | '!=' | '===' | '!==' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | '/' | '%';

export type LogicalOperator = '||' | '&&' | '??';
