; Added to the C wheel's TAGS_QUERY, which has definitions but no references.

(call_expression
  function: (identifier) @name) @reference.call

(type_identifier) @name @reference.type
