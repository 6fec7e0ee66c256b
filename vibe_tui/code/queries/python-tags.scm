; Added to the Python wheel's TAGS_QUERY, which only knows calls as references.
; A base class, an imported name, a decorator or a type annotation ties a file to the
; file defining that name as surely as a call does.

(class_definition
  superclasses: (argument_list
    [
      (identifier) @name
      (attribute attribute: (identifier) @name)
    ])) @reference.class

(import_from_statement
  name: [
    (dotted_name (identifier) @name .)
    (aliased_import name: (dotted_name (identifier) @name .))
  ]) @reference.import

(decorator
  [
    (identifier) @name
    (attribute attribute: (identifier) @name)
  ]) @reference.decorator

(type
  [
    (identifier) @name
    (attribute attribute: (identifier) @name)
    (generic_type (identifier) @name)
  ]) @reference.type
