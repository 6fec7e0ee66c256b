; Bash: the wheel ships no tags query. Functions are the definitions; every command
; run is a reference, so a script calling a function defined elsewhere points at it.

(function_definition
  name: (word) @name) @definition.function

(command
  name: (command_name (word) @name)) @reference.call
