"""Tags from tree-sitter: what each language's query finds, and what it must not."""

from __future__ import annotations

import pytest

from vibe_tui.code.tags import TAG_LANGUAGES, extract_tags, has_tags, tags_query

# name, source, definitions (name, category, line), references that must be found
SAMPLES = [
    (
        "shop.py",
        b"from shop.cart import Cart\n\nclass Order(Base):\n    def total(self) -> Money:\n"
        b"        return compute_total(self.items)\n\ndef compute_total(items):\n    return sum(items)\n",
        [("Order", "class", 3), ("total", "function", 4), ("compute_total", "function", 7)],
        {"Cart", "Base", "Money", "compute_total"},
    ),
    (
        "shop.js",
        b"class Order {\n  total() { return computeTotal(this.items); }\n}\n"
        b"function computeTotal(items) { return items.length; }\nconst makeOrder = () => new Order();\n",
        [("Order", "class", 1), ("total", "method", 2), ("computeTotal", "function", 4), ("makeOrder", "function", 5)],
        {"computeTotal", "Order"},
    ),
    (
        "shop.ts",
        b"interface Priced { price: number }\ntype Money = number;\nenum Status { Open, Closed }\n"
        b"export class Order implements Priced {\n  price = 0;\n  total(): Money { return computeTotal([this]); }\n}\n"
        b"export function computeTotal(items: Priced[]): Money { return items.length; }\n",
        [
            ("Priced", "interface", 1),
            ("Money", "type", 2),
            ("Status", "enum", 3),
            ("Order", "class", 4),
            ("total", "method", 6),
            ("computeTotal", "function", 8),
        ],
        {"Priced", "Money", "computeTotal"},
    ),
    (
        "greeting.tsx",
        b"interface Props { name: string }\n"
        b"export function Greeting(props: Props) { return <div>{formatName(props.name)}</div>; }\n"
        b"const formatName = (name: string) => name.toUpperCase();\n",
        [("Props", "interface", 1), ("Greeting", "function", 2), ("formatName", "function", 3)],
        {"Props", "formatName"},
    ),
    (
        "shop.go",
        b"package shop\n\ntype Order struct{ Items []Item }\n\n"
        b"func (o *Order) Total() int { return ComputeTotal(o.Items) }\n\n"
        b"func ComputeTotal(items []Item) int { return len(items) }\n",
        [("Order", "type", 3), ("Total", "method", 5), ("ComputeTotal", "function", 7)],
        {"ComputeTotal", "Item", "Order"},
    ),
    (
        "shop.rs",
        b"pub struct Order { items: Vec<Item> }\nimpl Order {\n"
        b"    pub fn total(&self) -> u32 { compute_total(&self.items) }\n}\n"
        b"pub fn compute_total(items: &[Item]) -> u32 { items.len() as u32 }\n"
        b"trait Priced { fn price(&self) -> u32; }\n",
        [("Order", "class", 1), ("total", "method", 3), ("compute_total", "function", 5), ("Priced", "interface", 6)],
        {"compute_total", "Item", "Order"},
    ),
    (
        "Order.java",
        b"public class Order implements Priced {\n"
        b"    public int total() { return Totals.computeTotal(items); }\n}\n"
        b"interface Priced { int price(); }\n",
        [("Order", "class", 1), ("total", "method", 2), ("Priced", "interface", 4)],
        {"Priced", "computeTotal"},
    ),
    (
        "shop.c",
        b"struct order { int n; };\ntypedef struct order order_t;\n"
        b"int compute_total(order_t *o) { return helper(o->n); }\n",
        [("order", "class", 1), ("order_t", "type", 2), ("compute_total", "function", 3)],
        {"helper", "order_t"},
    ),
    (
        "shop.cpp",
        b"namespace shop {\nclass Order {\npublic:\n    int total() const;\n};\n"
        b"int Order::total() const { return compute_total(items_); }\n}\n",
        [("Order", "class", 2), ("total", "method", 6)],
        {"compute_total"},
    ),
    (
        "shop.rb",
        b"module Shop\n  class Order < Base\n    def total\n      compute_total(items)\n    end\n  end\nend\n",
        [("Shop", "module", 1), ("Order", "class", 2), ("total", "method", 3)],
        {"Base", "compute_total"},
    ),
    (
        "build.sh",
        b'build_all() {\n  compile_one "$1"\n}\ncompile_one() { gcc -c "$1"; }\nbuild_all src\n',
        [("build_all", "function", 1), ("compile_one", "function", 4)],
        {"build_all", "compile_one"},
    ),
]


@pytest.mark.parametrize(("name", "source", "definitions", "references"), SAMPLES, ids=[s[0] for s in SAMPLES])
def test_definitions_and_references_per_language(name, source, definitions, references):
    tags = extract_tags(name, source)
    found = {(d.name, d.category, d.line) for d in tags.definitions}
    assert set(definitions) <= found
    assert references <= set(tags.references)


def test_every_tag_language_has_a_query_and_samples_cover_them_all():
    from vibe_tui.code.languages import language_name

    assert {language_name(sample[0]) for sample in SAMPLES} == TAG_LANGUAGES
    for language in TAG_LANGUAGES:
        assert tags_query(language) is not None, language


def test_a_definition_keeps_its_signature_line_and_extent():
    source = b"class Order:\n    @property\n    def total(self):\n        return 1\n\n\nx = 1\n"
    total = next(d for d in extract_tags("o.py", source).definitions if d.name == "total")
    assert total.signature == "    def total(self):"
    assert (total.line, total.start, total.end) == (3, 3, 4)


def test_references_count_uses_and_a_definition_is_not_its_own_reference():
    source = b"class Order\n  def total\n    tax(1) + tax(2)\n  end\nend\n"
    tags = extract_tags("o.rb", source)
    assert tags.references["tax"] >= 2
    # Ruby's query tags every identifier as a reference, the defining ones too.
    assert "Order" not in tags.references
    assert "total" not in tags.references


def test_a_file_that_does_not_parse_still_gives_the_tags_tree_sitter_placed():
    source = b"def good_one():\n    return helper()\n\ndef broken(:\n    pass\n\nclass StillFound:\n    pass\n"
    names = {d.name for d in extract_tags("broken.py", source).definitions}
    assert {"good_one", "StillFound"} <= names


def test_long_signature_lines_are_shortened():
    source = b"function f(" + b", ".join(b"a%d" % n for n in range(100)) + b") {}\n"
    signature = extract_tags("min.js", source).definitions[0].signature
    assert signature.endswith("...") and len(signature) < 130


def test_languages_without_tags():
    assert extract_tags("data.toml", b"a = 1\n") is None
    assert extract_tags("notes.txt", b"hello\n") is None
    assert not has_tags("style.css") and not has_tags("README")
    assert has_tags("src/App.TSX") and has_tags("run.sh")
