"""A safe parser of formulas typed as text: ``parse_formula`` reads a formula string against a
whitelist with a walker over Python's ``ast``, never evaluating it, and refuses input that
would make sympy spin or overflow."""
from __future__ import annotations

import ast
import cmath
import math
import operator
import re
import time

import sympy

from ..exceptions import SuperposError

__all__ = ["parse_formula", "parse_template", "TEMPLATE_CONSTANT"]

TEMPLATE_CONSTANT = "c"
"""In a template, each ``c`` is a constant of its own, fitted to the data."""

_FORMULA_FUNCTIONS = {"sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "exp": sympy.exp, "log": sympy.log,
                      "sqrt": sympy.sqrt, "Abs": sympy.Abs, "abs": sympy.Abs, "tanh": sympy.tanh, "asin": sympy.asin,
                      "acos": sympy.acos, "atan": sympy.atan, "sinh": sympy.sinh, "cosh": sympy.cosh,
                      "erf": sympy.erf, "pow": None}


def _erf(z: complex) -> float:
    if z.imag:
        raise ValueError("erf of a complex number")
    return math.erf(z.real)


_FORMULA_NUMERIC = {"Abs": abs, "abs": abs, "erf": _erf,
                    **{f: getattr(cmath, f) for f in _FORMULA_FUNCTIONS if hasattr(cmath, f)}}
_FORMULA_NAME = re.compile(r"x[1-9][0-9]{0,2}|c[0-9]{0,3}")
_FORMULA_NUMBER = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_FORMULA_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
_FORMULA_CHAIN = {ast.Add: "+", ast.Sub: "+", ast.Mult: "*", ast.Div: "*"}  # a + b - c, a * b / c: one level
_FORMULA_SYNTAX = {ast.Attribute: "attribute access", ast.Subscript: "subscripts", ast.Lambda: "lambdas",
                   ast.Compare: "comparisons", ast.BoolOp: "and/or", ast.IfExp: "if/else", ast.JoinedStr: "strings"}
# limits: length, nesting, nested functions and roots (sympy's automatic simplification grows exponentially
# with them), digits of an integer, |exponent|, |constant|, bits of an exact number and of all, seconds
_MAX_TEXT, _MAX_NESTING, _MAX_CALLS, _MAX_DIGITS, _MAX_EXPONENT = 2000, 100, 5, 30, 100
_MAX_VALUE, _MAX_BITS, _MAX_TOTAL_BITS, _MAX_SYMPY_SECONDS = 1e300, 1100, 12000, 2.0
_INFINITIES = (sympy.zoo, sympy.nan, sympy.oo, -sympy.oo)


def _nesting(tree: ast.AST) -> tuple[int, int]:
    """Depth of the syntax tree and the most nested calls and non-integer powers (no recursion)."""
    deepest, calls, stack = 0, 0, [(tree, 1, 0)]
    while stack:
        node, d, k = stack.pop()
        root = isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and not (
            isinstance(node.right, ast.Constant) and type(node.right.value) is int)
        k += isinstance(node, ast.Call) or root
        deepest, calls = max(deepest, d), max(calls, k)
        for child in ast.iter_child_nodes(node):
            chain = (isinstance(node, ast.BinOp) and child is node.left and isinstance(child, ast.BinOp)
                     and _FORMULA_CHAIN.get(type(child.op), "?") == _FORMULA_CHAIN.get(type(node.op)))
            stack.append((child, d if chain else d + 1, k))
    return deepest, calls


class _FormulaReader:
    """sympy expression and, for constant parts, value (to refuse huge ones first) of an ``ast``."""

    def __init__(self, text: str, symbols: dict, numbers=None, template: bool = False):
        self.source, self.symbols, self.bits, self.numbers = "", symbols, 0.0, numbers or sympy.Float
        self.template, self.placeholders, self.constants = template, {}, 0
        self.shown = repr(text if len(text) <= 120 else text[:100] + "...")
        self.deadline = time.perf_counter() + _MAX_SYMPY_SECONDS

    def fail(self, problem: str | None = None) -> SuperposError:
        what = "template" if self.template else "formula"
        return SuperposError(f"{problem[:160]} in the {what} {self.shown}" if problem else
                             f"the {what} {self.shown} is not finite (division by zero?)")

    def guarded(self, f, *args) -> float:
        try:  # in complex arithmetic: a finite real number or an error
            value = complex(f(*args))
        except (ZeroDivisionError, ValueError, TypeError):
            raise self.fail() from None
        except OverflowError:
            value = complex("inf")
        if not cmath.isfinite(value) or abs(value) > _MAX_VALUE:
            raise self.fail(f"a number above {_MAX_VALUE:g}")
        if abs(value.imag) > 1e-9 * max(1.0, abs(value.real)):
            raise self.fail(f"a constant that is not a real number ({value:.3g})")
        return value.real

    def checked(self, expr, value=None, constant=False):  # -> (expr, its value if constant else None)
        if value is None and not (constant or expr.is_Number):
            return expr, None
        if expr.has(*_INFINITIES):
            raise self.fail()
        if value is None:  # a constant after cancellation, as in x1 - x1 + 2
            value = self.guarded(lambda: expr.evalf(20))
        if expr.is_Rational and max(expr.p.bit_length(), expr.q.bit_length()) > _MAX_BITS:
            raise self.fail("a number with too many digits")
        return expr, value

    def walk(self, node: ast.AST):
        if time.perf_counter() > self.deadline:
            raise self.fail(f"more than {_MAX_SYMPY_SECONDS:g} s of sympy work (simplify it)")
        if isinstance(node, ast.Constant):
            literal = ast.get_source_segment(self.source, node) or ""
            if type(node.value) not in (int, float) or not _FORMULA_NUMBER.fullmatch(literal):
                raise self.fail(f"the literal {literal[:40]!r} (only decimal numbers are allowed)")
            if isinstance(node.value, float):
                return self.numbers(literal), self.guarded(float, node.value)
            if len(literal) > _MAX_DIGITS:
                raise self.fail(f"an integer with more than {_MAX_DIGITS} digits")
            return self.count(sympy.Integer(node.value)), float(node.value)
        if isinstance(node, ast.Name):
            if node.id in self.symbols:  # given, or pi and E
                return self.checked(self.symbols[node.id], None, not self.symbols[node.id].free_symbols)
            if node.id in _FORMULA_FUNCTIONS:
                raise self.fail(f"the function {node.id} without its argument")
            if self.template and node.id == TEMPLATE_CONSTANT:  # each c its own constant
                self.constants += 1
                return sympy.Symbol(f"c{self.constants - 1}", real=True), None
            if self.template:
                raise self.fail(f"the name {node.id!r}, which is no input, constant or placeholder call")
            return sympy.Symbol(node.id, real=True), None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            e, v = self.walk(node.operand)
            return (e, v) if isinstance(node.op, ast.UAdd) else self.checked(-e, None if v is None else -v)
        if isinstance(node, ast.BinOp) and type(node.op) in _FORMULA_OPS:
            return self.chain(node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            return self.power(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, (ast.BinOp, ast.UnaryOp)):
            raise self.fail(f"an operator other than + - * / ** ^ in {ast.get_source_segment(self.source, node)!r}")
        raise self.fail(f"{_FORMULA_SYNTAX.get(type(node), type(node).__name__)} (not allowed)")

    def chain(self, node: ast.BinOp):  # a + b - c ... (or a * b / c ...) left to right, without recursion
        group, links = _FORMULA_CHAIN[type(node.op)], []
        while isinstance(node, ast.BinOp) and _FORMULA_CHAIN.get(type(node.op)) == group:
            links.append((_FORMULA_OPS[type(node.op)], node.right))
            node = node.left
        acc, av = self.walk(node)
        for f, right in reversed(links):
            e, v = self.walk(right)
            if f is operator.truediv and e == 0:
                raise self.fail()
            acc, av = self.checked(f(acc, e), None if av is None or v is None else self.guarded(f, av, v))
        return acc, av

    def power(self, node: ast.BinOp):
        (base, bv), (ex, ev) = [self.checked(e, v, not e.free_symbols)
                                for e, v in (self.walk(node.left), self.walk(node.right))]
        if ev is not None and abs(ev) > _MAX_EXPONENT:
            raise self.fail(f"an exponent above {_MAX_EXPONENT}")
        value = None if bv is None or ev is None else self.guarded(pow, complex(bv), ev)  # before sympy computes it
        expr = sympy.Pow(base, ex)  # one step from checked parts: quick; checked again before the next
        if any(a.is_Pow and a.exp.is_Number and abs(a.exp) > _MAX_EXPONENT for a in (expr, *expr.args)):
            raise self.fail(f"an exponent above {_MAX_EXPONENT}")  # as in (x1**50)**50
        self.count(*[a for a in (expr, *expr.args) if a.is_Rational])
        return self.checked(expr, value)

    def count(self, *numbers: sympy.Rational) -> sympy.Rational:
        for r in numbers:  # python ints: slow when huge, and unprintable past 4300 digits
            self.bits += (bits := max(r.p.bit_length(), r.q.bit_length()))
            if bits > _MAX_BITS or self.bits > _MAX_TOTAL_BITS:
                raise self.fail("a number with too many digits")
        return numbers[0] if numbers else None

    def call(self, node: ast.Call):
        f = node.func.id if isinstance(node.func, ast.Name) else None
        if self.template and f is not None and f not in _FORMULA_FUNCTIONS and f not in self.symbols:
            return self.placeholder(f, node), None
        if f not in _FORMULA_FUNCTIONS or f in self.symbols:
            raise self.fail(f"a call of {ast.get_source_segment(self.source, node.func)!r}, which is not a function")
        if f == "pow" and len(node.args) == 2 and not node.keywords:  # pow(x, 0.45) is x**0.45
            return self.power(ast.BinOp(left=node.args[0], op=ast.Pow(), right=node.args[1]))
        if node.keywords or len(node.args) != (2 if f == "pow" else 1):
            raise self.fail("keyword arguments" if node.keywords else f"{f}() of {len(node.args)} arguments")
        arg, value = self.walk(node.args[0])
        value = value if value is None else self.guarded(_FORMULA_NUMERIC[f], value)
        return self.checked(_FORMULA_FUNCTIONS[f](arg), value)


    def placeholder(self, name: str, node: ast.Call):
        """f(x1, x2): an unknown function of inputs, the same function wherever the name recurs."""
        if name == TEMPLATE_CONSTANT or _FORMULA_NAME.fullmatch(name):
            raise self.fail(f"the placeholder name {name!r} (x1, x2, ... are inputs and c a constant: choose "
                            f"another name, such as f or g)")
        if node.keywords or not node.args:
            raise self.fail(f"the placeholder {name}() without inputs (write it as {name}(x1, ...))")
        args = []
        for a in node.args:
            if not (isinstance(a, ast.Name) and a.id in self.symbols and self.symbols[a.id].free_symbols):
                shown = ast.get_source_segment(self.source, a) or "?"
                raise self.fail(f"the argument {shown[:40]!r} of the placeholder {name} (its arguments are "
                                f"input names)")
            args.append(self.symbols[a.id])
        if len(set(args)) != len(args):
            raise self.fail(f"an input twice in the placeholder {name}")
        if self.placeholders.setdefault(name, len(args)) != len(args):
            raise self.fail(f"the placeholder {name} called with {len(args)} and with {self.placeholders[name]} "
                            f"inputs (one name is one function)")
        return sympy.Function(name)(*args)


def parse_template(text: str, symbols: dict) -> sympy.Expr:
    """Read a template such as ``"f(x1, x2) + g(x3)"`` or ``"exp(f(x1)) * c"``: the reader of
    :func:`parse_formula` with its limits, where a call of a name that is no function is a
    placeholder, an unknown function of the inputs it names (input names only, each once; the
    same name twice is one shared function), each ``c`` a constant of its own (c0, c1, ...)
    and numbers fixed. ``symbols``: the inputs by name (the caller adds x1..xm and column names,
    and refuses columns named like functions or placeholders). At least one placeholder."""
    if not isinstance(text, str):
        raise SuperposError(f"a template must be a string, got {type(text).__name__}")
    expr = parse_formula(text, symbols, template=True)
    if not expr.atoms(sympy.core.function.AppliedUndef):
        raise SuperposError(f"the template {text[:100]!r} has no placeholder: write the unknown parts as "
                            f"functions of inputs, e.g. f(x1, x2) + g(x3)")
    return expr


def parse_formula(text: str, symbols: dict | None = None, numbers=None, template: bool = False) -> sympy.Expr:
    """Parse a formula such as ``"2*sin(x1) + x2**2"`` with a walker over Python's ``ast``
    (no eval, no sympify), which accepts decimal numbers, + - * / ** ^, the names in ``symbols``,
    x1..x999, c, c0, c1, ..., pi, E, sin cos tan exp log sqrt Abs abs tanh asin acos atan sinh
    cosh erf of one argument and pow(a, b) (a**b), and refuses huge, infinite, complex or deeply nested input with one
    :class:`SuperposError` before sympy (which spins for minutes on 9**9**9**9) computes it.
    ``numbers``: how a decimal literal's text becomes a number (default ``sympy.Float``; the
    exactness checks read them as rounded rationals before sympy merges 0.5 exp(4.0 - 0.4 x)
    into 27.299 exp(-0.4 x)). ``template``: read it as :func:`parse_template` does."""
    if not isinstance(text, str):
        raise SuperposError(f"a formula must be a string, got {type(text).__name__}")
    symbols = {"pi": sympy.pi, "E": sympy.E, **(symbols or {})}
    reader = _FormulaReader(text, symbols, numbers, template)
    if len(text) > _MAX_TEXT:
        raise reader.fail(f"more than {_MAX_TEXT} characters")
    source = reader.source = text.replace("^", "**").strip()
    bad = next((ch for ch in text if not (" " <= ch <= "~" or ch == "\t") or ch in "#\\"), None)
    if bad is not None or not source:
        raise reader.fail("nothing" if bad is None else f"the unexpected character {bad!r}")
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise reader.fail(f"a syntax error ({' '.join(str(getattr(exc, 'msg', 'unreadable')).split())})") from None
    depth, calls = _nesting(tree)
    if depth > _MAX_NESTING or calls > _MAX_CALLS:
        raise reader.fail(f"nesting deeper than {_MAX_NESTING} levels" if depth > _MAX_NESTING else
                          f"functions and roots nested more than {_MAX_CALLS} deep")
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if template and id(node) in called:
            continue
        if isinstance(node, ast.Name) and not (node.id in symbols or node.id in _FORMULA_FUNCTIONS
                                               or _FORMULA_NAME.fullmatch(node.id)):
            raise SuperposError(f"unknown name {node.id[:40]!r} in the {'template' if template else 'formula'} "
                                f"{reader.shown}")
    expr, _ = reader.walk(tree.body)
    if expr.has(*_INFINITIES):  # x1/(x1 - x1) and the like
        raise reader.fail()
    return expr
