; Added to the Rust wheel's TAGS_QUERY, whose references are calls and impls only.

(type_identifier) @name @reference.type

(scoped_identifier
  name: (identifier) @name) @reference.path
