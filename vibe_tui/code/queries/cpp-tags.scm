; Added to the C++ wheel's TAGS_QUERY, which has definitions but no references.

(call_expression
  function: [
    (identifier) @name
    (field_expression field: (field_identifier) @name)
    (qualified_identifier name: (identifier) @name)
  ]) @reference.call

(type_identifier) @name @reference.type
