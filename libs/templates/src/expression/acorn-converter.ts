import type { AnyNode, Expression, MemberExpression, Property, SpreadElement } from 'acorn';
import { TemplateError } from '../errors/template-error';
import type {
  BinaryOperator,
  ElementNode,
  EntryNode,
  ExpressionNode,
  PropertyNode,
  UnaryOperator,
} from './expression-node';
import { FORBIDDEN_IDENTIFIERS, FORBIDDEN_PROPERTIES } from './forbidden-names';

const BINARY_OPERATORS: ReadonlySet<string> = new Set<BinaryOperator>([
  '==',
  '!=',
  '===',
  '!==',
  '<',
  '<=',
  '>',
  '>=',
  '+',
  '-',
  '*',
  '/',
  '%',
]);
const UNARY_OPERATORS: ReadonlySet<string> = new Set<UnaryOperator>(['!', '-', '+', 'typeof']);

// Constructs the language leaves out, by acorn node type, as the error names them.
const UNSUPPORTED_NODES: Partial<Record<AnyNode['type'], string>> = {
  NewExpression: '"new"',
  ThisExpression: '"this"',
  Super: '"super"',
  ArrowFunctionExpression: 'arrow functions',
  FunctionExpression: 'function expressions',
  ClassExpression: 'classes',
  SequenceExpression: 'the comma operator',
  TaggedTemplateExpression: 'tagged templates',
  AwaitExpression: '"await"',
  YieldExpression: '"yield"',
  ImportExpression: '"import()"',
  PrivateIdentifier: 'private names',
};

const unsupported = (construct: string, node: AnyNode): TemplateError =>
  new TemplateError('unsupported', `templates do not support ${construct}`, { expressionOffset: node.start });

const forbiddenProperty = (name: string, start: number): TemplateError =>
  new TemplateError('forbidden', `the property "${name}" is not accessible`, { expressionOffset: start });

type Identifiers = { name: string; start: number }[];

/**
 * Translates acorn's tree into ours. Anything not translated is refused, by name, so the evaluator
 * never meets a construct the language leaves out. Names and properties that lead to the host are
 * refused here too, where the text says so, so validation reports them before anything runs.
 */
export class AcornConverter {
  constructor(
    private readonly maxDepth: number,
    private readonly identifiers: Identifiers,
  ) {}

  convert(node: AnyNode, depth: number): ExpressionNode {
    if (depth > this.maxDepth) {
      throw new TemplateError('limit', `the expression nests deeper than ${this.maxDepth} levels`, {
        expressionOffset: node.start,
      });
    }
    const named = UNSUPPORTED_NODES[node.type];
    if (named !== undefined) throw unsupported(named, node);

    const sub = (child: AnyNode): ExpressionNode => this.convert(child, depth + 1);
    const start = node.start;
    switch (node.type) {
      case 'ParenthesizedExpression':
        return sub(node.expression);
      case 'Literal':
        return this.literal(node);
      case 'TemplateLiteral':
        return {
          kind: 'template',
          start,
          quasis: node.quasis.map((q) => q.value.cooked ?? q.value.raw),
          expressions: node.expressions.map(sub),
        };
      case 'Identifier':
        return this.identifier(node.name, start);
      case 'ArrayExpression':
        return { kind: 'array', start, elements: node.elements.map((el) => this.element(el, node, depth + 1)) };
      case 'ObjectExpression':
        return { kind: 'object', start, entries: node.properties.map((p) => this.entry(p, depth + 1)) };
      case 'MemberExpression':
        return {
          kind: 'member',
          start,
          keyStart: node.property.start,
          object: sub(node.object),
          property: this.property(node, depth + 1),
          optional: node.optional,
        };
      case 'CallExpression':
        return {
          kind: 'call',
          start,
          callee: sub(node.callee),
          args: node.arguments.map((arg) => {
            if (arg.type === 'SpreadElement') throw unsupported('spread arguments', arg);
            return sub(arg);
          }),
          optional: node.optional,
        };
      case 'ChainExpression':
        return { kind: 'chain', start, expression: sub(node.expression) };
      case 'UnaryExpression': {
        const operator = node.operator;
        if (!isUnaryOperator(operator)) throw unsupported(`the "${operator}" operator`, node);
        return { kind: 'unary', start, operator, argument: sub(node.argument) };
      }
      case 'BinaryExpression': {
        const operator = node.operator;
        if (!isBinaryOperator(operator)) throw unsupported(`the "${operator}" operator`, node);
        return { kind: 'binary', start, operator, left: sub(node.left), right: sub(node.right) };
      }
      case 'LogicalExpression':
        return { kind: 'logical', start, operator: node.operator, left: sub(node.left), right: sub(node.right) };
      case 'ConditionalExpression':
        return {
          kind: 'conditional',
          start,
          test: sub(node.test),
          consequent: sub(node.consequent),
          alternate: sub(node.alternate),
        };
      case 'AssignmentExpression':
        throw unsupported(`assignment ("${node.operator}")`, node);
      case 'UpdateExpression':
        throw unsupported(`the "${node.operator}" operator`, node);
      case 'MetaProperty':
        throw unsupported(`"${node.meta.name}.${node.property.name}"`, node);
      default:
        throw unsupported(`"${node.type}"`, node);
    }
  }

  private literal(node: AnyNode & { type: 'Literal' }): ExpressionNode {
    const value = node.value;
    if (node.regex || value instanceof RegExp) throw unsupported('regular expression literals', node);
    if (typeof value === 'bigint') throw unsupported('BigInt literals', node);
    return { kind: 'literal', start: node.start, value: value ?? null };
  }

  private identifier(name: string, start: number): ExpressionNode {
    if (name === 'undefined') return { kind: 'literal', start, value: undefined };
    if (FORBIDDEN_IDENTIFIERS.has(name)) {
      throw new TemplateError('forbidden', `"${name}" is not available in templates`, { expressionOffset: start });
    }
    this.identifiers.push({ name, start });
    return { kind: 'identifier', start, name };
  }

  private element(el: Expression | SpreadElement | null, array: AnyNode, depth: number): ElementNode {
    if (el === null) throw unsupported('an array with holes', array);
    return el.type === 'SpreadElement'
      ? { spread: true, value: this.convert(el.argument, depth) }
      : { spread: false, value: this.convert(el, depth) };
  }

  private property(node: MemberExpression, depth: number): PropertyNode {
    const prop = node.property;
    if (!node.computed && prop.type === 'Identifier') {
      if (FORBIDDEN_PROPERTIES.has(prop.name)) throw forbiddenProperty(prop.name, prop.start);
      return { fixed: prop.name };
    }
    // A literal key is checked now, so validation catches `a['__proto__']`; computed ones at run time.
    if (prop.type === 'Literal' && typeof prop.value === 'string' && FORBIDDEN_PROPERTIES.has(prop.value)) {
      throw forbiddenProperty(prop.value, prop.start);
    }
    return { computed: this.convert(prop, depth) };
  }

  private entry(p: Property | SpreadElement, depth: number): EntryNode {
    if (p.type === 'SpreadElement') return { spread: this.convert(p.argument, depth) };
    if (p.kind !== 'init') throw unsupported('getters and setters', p);
    if (p.method) throw unsupported('methods', p);
    if (p.computed) throw unsupported('computed keys', p);
    const key = p.key.type === 'Identifier' ? p.key.name : p.key.type === 'Literal' ? p.key.value : undefined;
    if (typeof key !== 'string' && typeof key !== 'number') throw unsupported('this kind of key', p);
    const name = String(key);
    if (FORBIDDEN_PROPERTIES.has(name)) {
      throw new TemplateError('forbidden', `the key "${name}" is not allowed`, { expressionOffset: p.key.start });
    }
    return { key: name, value: this.convert(p.value, depth) };
  }
}

function isBinaryOperator(op: string): op is BinaryOperator {
  return BINARY_OPERATORS.has(op);
}

function isUnaryOperator(op: string): op is UnaryOperator {
  return UNARY_OPERATORS.has(op);
}
