//! Which names a function body may change: a syntactic pre-scan of a function definition,
//! run before it is lowered.
//!
//! Takes the body's AST; gives the names that appear as the target of an assignment, an
//! increment or decrement, or under `&`, or `None` when the body has a `goto` or `asm`
//! (which this scan cannot follow). Lowering uses it to take a local `int` that is initialized
//! with a constant and never written (`int NTAB = 32; int iv[NTAB];`) as that constant where C
//! wants one, instead of rejecting the array as variable-length. Names are compared as
//! strings, whatever scope they resolve to: a write to any variable of that name disqualifies.
//! Locals declared inside a `switch` body are disqualified too, since a `case` label may jump
//! past their initialization.

use lang_c::ast::{
    AsmStatement, BinaryOperator, BinaryOperatorExpression, Declarator, DeclaratorKind, Expression,
    Statement, SwitchStatement, UnaryOperator, UnaryOperatorExpression,
};
use lang_c::span::Span;
use lang_c::visit::{self, Visit};
use std::collections::HashSet;

/// The names `body` may write (see the module doc), or `None` if it cannot tell.
pub(super) fn written_names(body: &Statement, span: &Span) -> Option<HashSet<String>> {
    let mut w = Written {
        names: HashSet::new(),
        opaque: false,
        in_switch: 0,
    };
    w.visit_statement(body, span);
    (!w.opaque).then_some(w.names)
}

struct Written {
    names: HashSet<String>,
    opaque: bool,
    in_switch: usize,
}

impl Written {
    fn target(&mut self, e: &Expression) {
        if let Expression::Identifier(id) = e {
            self.names.insert(id.node.name.clone());
        }
    }
}

impl<'ast> Visit<'ast> for Written {
    fn visit_binary_operator_expression(
        &mut self,
        e: &'ast BinaryOperatorExpression,
        s: &'ast Span,
    ) {
        use BinaryOperator::*;
        if matches!(
            e.operator.node,
            Assign
                | AssignMultiply
                | AssignDivide
                | AssignModulo
                | AssignPlus
                | AssignMinus
                | AssignShiftLeft
                | AssignShiftRight
                | AssignBitwiseAnd
                | AssignBitwiseXor
                | AssignBitwiseOr
        ) {
            self.target(&e.lhs.node);
        }
        visit::visit_binary_operator_expression(self, e, s)
    }

    fn visit_unary_operator_expression(&mut self, e: &'ast UnaryOperatorExpression, s: &'ast Span) {
        use UnaryOperator::*;
        if matches!(
            e.operator.node,
            PostIncrement | PostDecrement | PreIncrement | PreDecrement | Address
        ) {
            self.target(&e.operand.node);
        }
        visit::visit_unary_operator_expression(self, e, s)
    }

    fn visit_statement(&mut self, st: &'ast Statement, s: &'ast Span) {
        if matches!(st, Statement::Goto(_)) {
            self.opaque = true;
        }
        visit::visit_statement(self, st, s)
    }

    fn visit_asm_statement(&mut self, _: &'ast AsmStatement, _: &'ast Span) {
        self.opaque = true;
    }

    fn visit_switch_statement(&mut self, st: &'ast SwitchStatement, s: &'ast Span) {
        self.in_switch += 1;
        visit::visit_switch_statement(self, st, s);
        self.in_switch -= 1;
    }

    fn visit_declarator(&mut self, d: &'ast Declarator, s: &'ast Span) {
        if self.in_switch > 0 {
            if let DeclaratorKind::Identifier(id) = &d.kind.node {
                self.names.insert(id.node.name.clone());
            }
        }
        visit::visit_declarator(self, d, s)
    }
}

/// Whether initializer `init` of the declaration of `name` reads that name outside `sizeof`:
/// the declared variable is in scope in its own initializer (`int x = x;` reads the new,
/// uninitialized `x`), while `sizeof *p` in `T *p = malloc(sizeof *p)` only takes its type.
pub(super) fn init_reads_itself(
    init: &lang_c::span::Node<lang_c::ast::Initializer>,
    name: &str,
) -> bool {
    struct Reads<'n> {
        name: &'n str,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Reads<'_> {
        fn visit_expression(&mut self, e: &'ast Expression, s: &'ast Span) {
            match e {
                Expression::SizeOfVal(_) | Expression::SizeOfTy(_) | Expression::AlignOf(_) => {}
                Expression::Identifier(id) if id.node.name == self.name => self.found = true,
                _ => visit::visit_expression(self, e, s),
            }
        }
    }
    let mut r = Reads { name, found: false };
    r.visit_initializer(&init.node, &init.span);
    r.found
}
