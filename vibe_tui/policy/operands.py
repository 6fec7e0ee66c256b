"""Which words of a read-only command name files.

A listed command runs without asking only when every file it reads stays inside the
workspace, so the policy must know which of its words are files: `grep -e /api/ src`
reads src, not /api/; `grep -- -x /etc/passwd` reads /etc/passwd. Here is, for every
program on the read-only list (and git's read-only subcommands), which options take a
value and whether that value is a file; options.py reads the words with that knowledge.
A value described nowhere is a file, and so is one that some other implementation of the
program reads as a file (BSD fmt -p is a flag, so `fmt -p X` may read X).
"""

from __future__ import annotations

import re

from vibe_tui.policy.options import (
    FLAG,
    NUMBER,
    OPTIONAL,
    PATHS,
    PATTERN,
    PATTERN_FILE,
    REQUIRED,
    TEXT,
    Option,
    Program,
    paths_of,
    program,
    tidy,
)

# Short and long options from each program's own table (GNU coreutils 9, grep 3, diffutils
# 3, util-linux 2.38, file 5, man-db 2, binutils 2, ripgrep 13-14, tree 2, git 2.39).

_DIGITS = "".join(f"{d}::" for d in "0123456789")  # head -5, fold -80: digits take the rest
_SUMS = program("bctwz", "binary check help ignore-missing quiet status strict tag text "
                "version warn zero")
_GREP = program(
    # -X (an undocumented matcher here, a flag in BSD grep) is left out: unknown, so unsure.
    "0123456789A:B:C:D:EFGHILPRTUVZabcd:e:f:hilm:noqrsuvwxyz",
    "after-context=/A basic-regexp before-context=/B binary binary-files= byte-offset "
    "color=? colour=? context=/C count dereference-recursive devices=/D directories=/d "
    "exclude= exclude-dir= exclude-from= extended-regexp file=/f files-with-matches "
    "files-without-match fixed-regexp fixed-strings group-separator= help ignore-case "
    "include= initial-tab invert-match label= line-buffered line-number line-regexp "
    "max-count=/m no-filename no-group-separator no-ignore-case no-messages null null-data "
    "only-matching perl-regexp quiet recursive regexp=/e silent text unix-byte-offsets "
    "version with-filename word-regexp",
    {"A": NUMBER, "B": NUMBER, "C": NUMBER, "m": NUMBER, "D": TEXT, "d": TEXT, "e": PATTERN,
     "f": PATTERN_FILE, "binary-files": TEXT, "color": TEXT, "colour": TEXT, "exclude": TEXT,
     "exclude-dir": TEXT, "group-separator": TEXT, "include": TEXT, "label": TEXT},
    pattern_first=True)
_RG_FLAGS = (
    "auto-hybrid-regex binary block-buffered byte-offset case-sensitive column count "
    "count-matches crlf debug files files-with-matches files-without-match fixed-strings "
    "follow glob-case-insensitive heading help hidden ignore-case ignore-file-case-insensitive "
    "include-zero invert-match json line-buffered line-number line-regexp max-columns-preview "
    "mmap multiline multiline-dotall no-config no-filename no-ignore no-ignore-dot "
    "no-ignore-exclude no-ignore-files no-ignore-global no-ignore-messages no-ignore-parent "
    "no-ignore-vcs no-line-number no-messages no-pcre2-unicode no-require-git no-unicode null "
    "null-data one-file-system only-matching passthru passthrough pcre2 pcre2-version pretty "
    "quiet search-zip smart-case sort-files stats stop-on-nonmatch text trace trim type-list "
    "unrestricted version vimgrep with-filename word-regexp")
# ripgrep's --no-X for a flag X, and its other negations.
_RG_NEGATIONS = (
    " ".join("no-" + f for f in _RG_FLAGS.split() if not f.startswith("no-")) + " "
    "ignore ignore-dot ignore-exclude ignore-files ignore-global ignore-messages ignore-parent "
    "ignore-vcs messages pcre2-unicode require-git unicode no-context-separator no-encoding "
    "no-pre")
_RG = program(
    "A:B:C:E:HILM:NPST:UVabcd:e:f:g:hij:lm:nopqr:st:uvwxz0.",
    _RG_FLAGS + " " + _RG_NEGATIONS + " after-context=/A before-context=/B color= colors= "
    "context=/C context-separator= dfa-size-limit= encoding=/E engine= "
    "field-context-separator= field-match-separator= file=/f generate= glob=/g "
    "hostname-bin= hyperlink-format= iglob= ignore-file= max-columns=/M max-count=/m "
    "max-depth=/d maxdepth=/d max-filesize= path-separator= pre= pre-glob= "
    "regex-size-limit= regexp=/e replace=/r sort= sortr= threads=/j type=/t type-add= "
    "type-clear= type-not=/T",
    {"A": NUMBER, "B": NUMBER, "C": NUMBER, "M": NUMBER, "d": NUMBER, "j": NUMBER, "m": NUMBER,
     "E": TEXT, "T": TEXT, "g": TEXT, "r": TEXT, "t": TEXT, "e": PATTERN, "f": PATTERN_FILE,
     "color": TEXT, "colors": TEXT, "context-separator": TEXT, "dfa-size-limit": NUMBER,
     "engine": TEXT, "field-context-separator": TEXT, "field-match-separator": TEXT,
     "generate": TEXT, "hyperlink-format": TEXT, "iglob": TEXT, "max-filesize": NUMBER,
     "path-separator": TEXT, "pre-glob": TEXT, "regex-size-limit": NUMBER, "sort": TEXT,
     "sortr": TEXT, "type-add": TEXT, "type-clear": TEXT},
    # ripgrep's parser takes no abbreviations; --files and friends take no pattern.
    pattern_first=True, abbreviate=False,
    no_pattern=frozenset({"files", "type-list", "generate", "pcre2-version", "help", "version"}))

PROGRAMS: dict[str, Program] = {
    "grep": _GREP, "egrep": _GREP, "fgrep": _GREP,
    "rg": _RG,
    "ls": program(
        # -I is a flag to BSD ls: its value is checked like a file.
        "1ABCDFGHI:LNQRST:UXZabcdfghiklmnopqrstuvw:x",
        "all almost-all author block-size= classify=? color=? context dereference "
        "dereference-command-line dereference-command-line-symlink-to-dir directory dired "
        "escape file-type format= full-time group-directories-first help hide= "
        "hide-control-chars human-readable hyperlink=? ignore= ignore-backups "
        "indicator-style= inode kibibytes literal no-group numeric-uid-gid quote-name "
        "quoting-style= recursive reverse show-control-chars si size sort= tabsize=/T time= "
        "time-style= version width=/w zero",
        {"T": NUMBER, "w": NUMBER, **dict.fromkeys((
            "block-size", "classify", "color", "format", "hide", "hyperlink", "ignore",
            "indicator-style", "quoting-style", "sort", "time", "time-style"), TEXT)}),
    "cat": program("AETbenstuv", "help number number-nonblank show-all show-ends "
                   "show-nonprinting show-tabs squeeze-blank version"),
    "head": program(_DIGITS + "c:n:qvz", "bytes=/c help lines=/n quiet silent verbose "
                    "version zero-terminated", {"c": NUMBER, "n": NUMBER, **dict.fromkeys(
                        "0123456789", NUMBER)}),
    "tail": program(_DIGITS + "Fc:fn:qs:vz", "bytes=/c follow=? help lines=/n "
                    "max-unchanged-stats= pid= quiet retry silent sleep-interval=/s verbose "
                    "version zero-terminated", {
                        "c": NUMBER, "n": NUMBER, "s": NUMBER, "follow": TEXT,
                        "max-unchanged-stats": NUMBER, "pid": NUMBER,
                        **dict.fromkeys("0123456789", NUMBER)}),
    "stat": program("Lc:ft", "cached= dereference file-system format=/c help printf= terse "
                    "version", {"c": TEXT, "cached": TEXT, "printf": TEXT}),
    "realpath": program("LPemqsz", "canonicalize-existing canonicalize-missing help logical "
                        "no-symlinks physical quiet relative-base= relative-to= strip "
                        "version zero"),
    "readlink": program("efmnqsvz", "canonicalize canonicalize-existing canonicalize-missing "
                        "help no-newline quiet silent verbose version zero"),
    "cut": program("b:c:d:f:nsz", "bytes=/b characters=/c complement delimiter=/d fields=/f "
                   "help only-delimited output-delimiter= version zero-terminated",
                   dict.fromkeys(("b", "c", "d", "f", "output-delimiter"), TEXT)),
    "cmp": program("bci:ln:sv", "bytes=/n help ignore-initial=/i print-bytes print-chars "
                   "quiet silent verbose version", {"i": TEXT, "n": NUMBER}),
    "nl": program("b:d:f:h:i:l:n:ps:v:w:", "body-numbering=/b footer-numbering=/f "
                  "header-numbering=/h help join-blank-lines=/l line-increment=/i "
                  "no-renumber number-format=/n number-separator=/s number-width=/w "
                  "section-delimiter=/d starting-line-number=/v version",
                  {**dict.fromkeys("bdfhns", TEXT), **dict.fromkeys("ilvw", NUMBER)}),
    "sha256sum": _SUMS, "sha1sum": _SUMS, "sha512sum": _SUMS, "md5sum": _SUMS,
    "tac": program("brs:", "before help regex separator=/s version", {"s": TEXT}),
    "rev": program("0Vh", "zero help version"),
    "paste": program("d:sz", "delimiters=/d help serial version zero-terminated", {"d": TEXT}),
    "column": program(
        "E:H:JLN:O:R:T:VW:c:dehi:l:n:o:p:r:s:tx",
        "columns=/c fillrows help json keep-empty-lines output-separator=/o output-width=/c "
        "separator=/s table table-columns=/N table-columns-limit=/l table-empty-lines "
        "table-header-repeat table-hide=/H table-name=/n table-noextreme=/E table-noheadings "
        "table-order=/O table-right=/R table-truncate=/T table-wrap=/W tree=/r tree-id=/i "
        "tree-parent=/p version",
        {**dict.fromkeys("EHNORTWinoprs", TEXT), "c": NUMBER, "l": NUMBER}),
    "comm": program("123z", "check-order help nocheck-order output-delimiter= total version "
                    "zero-terminated", {"output-delimiter": TEXT}),
    "join": program("1:2:a:e:ij:o:t:v:z", "check-order header help ignore-case nocheck-order "
                    "version zero-terminated",
                    {"1": NUMBER, "2": NUMBER, "j": NUMBER, **dict.fromkeys("aeotv", TEXT)}),
    "fold": program(_DIGITS + "bsw:", "bytes help spaces version width=/w",
                    {"w": NUMBER, **dict.fromkeys("0123456789", NUMBER)}),
    # -p is a flag to BSD fmt: its value is checked like a file.
    "fmt": program(_DIGITS + "cg:p:stuw:", "crown-margin goal=/g help prefix= split-only "
                   "tagged-paragraph uniform-spacing version width=/w",
                   {"g": NUMBER, "w": NUMBER, "prefix": TEXT,
                    **dict.fromkeys("0123456789", NUMBER)}),
    "od": program("A:BDFHILN:OS:Xabcdefhij:lost:vw::x",
                  "address-radix=/A endian= format=/t help output-duplicates read-bytes=/N "
                  "skip-bytes=/j strings=?/S traditional version width=?/w",
                  {"A": TEXT, "t": TEXT, "endian": TEXT, **dict.fromkeys("NSjw", NUMBER)}),
    "hexdump": program("CL::Vbcde:f:hn:os:vx",
                       "canonical color=?/L format=/e format-file=/f help length=/n "
                       "no-squeezing one-byte-char one-byte-octal skip=/s two-bytes-decimal "
                       "two-bytes-hex two-bytes-octal version",
                       {"L": TEXT, "e": TEXT, "n": NUMBER, "s": NUMBER}),
    "strings": program("0123456789HT:U:Vade:fhn:os:t:vw",
                       "all bytes=/n data encoding=/e help include-all-whitespace "
                       "output-separator=/s print-file-name radix=/t target=/T unicode=/U "
                       "version", {**dict.fromkeys("TUest", TEXT), "n": NUMBER},
                       at_files=True),
    "wc": program("Lclmw", "bytes chars debug files0-from= help lines max-line-length total= "
                  "version words", {"total": TEXT}),
    "du": program("0B:DHLPSX:abcd:hklmst:x",
                  "all apparent-size block-size=/B bytes count-links dereference "
                  "dereference-args exclude= exclude-from=/X files0-from= help human-readable "
                  "inodes max-depth=/d no-dereference null one-file-system separate-dirs si "
                  "summarize threshold=/t time=? time-style= total version",
                  {"B": TEXT, "d": NUMBER, "t": TEXT, "exclude": TEXT, "time": TEXT,
                   "time-style": TEXT}),
    "df": program("B:F:HPTahiklmt:vx:", "all block-size=/B exclude-type=/x help human-readable "
                  "inodes local no-sync output=? portability print-type si sync total "
                  "type=/t version", {**dict.fromkeys("BFtx", TEXT), "output": TEXT}),
    "diff": program(
        "0123456789BC:D:EF:HI:L:NPS:TU:W:X:Zabcdefhilnpqrstuvwx:y",
        "binary brief changed-group-format= color=? context=?/C ed exclude=/x "
        "exclude-from=/X expand-tabs forward-ed from-file= help horizon-lines= ifdef=/D "
        "ignore-all-space ignore-blank-lines ignore-case ignore-file-name-case "
        "ignore-matching-lines=/I ignore-space-change ignore-tab-expansion "
        "ignore-trailing-space inhibit-hunk-merge initial-tab label=/L left-column "
        "line-format= minimal new-file new-group-format= new-line-format= no-dereference "
        "no-ignore-file-name-case normal old-group-format= old-line-format= paginate palette= "
        "rcs recursive report-identical-files sdiff-merge-assist show-c-function "
        "show-function-line=/F side-by-side speed-large-files starting-file=/S "
        "strip-trailing-cr suppress-blank-empty suppress-common-lines tabsize= text to-file= "
        "unchanged-group-format= unchanged-line-format= unidirectional-new-file unified=?/U "
        "version width=/W",
        {**dict.fromkeys("CUW", NUMBER), **dict.fromkeys("DFILx", TEXT), "color": TEXT,
         "horizon-lines": NUMBER, "palette": TEXT, "tabsize": NUMBER, **dict.fromkeys(
             (f"{w}-{x}-format" for w in ("changed", "new", "old", "unchanged")
              for x in ("group", "line")), TEXT), "line-format": TEXT}),
    "sort": program(
        # -y takes the next word only when it is digits (sort gives any other back).
        "CMRS:T:Vbcdfghik:mno:rst:uy::z",
        "batch-size= buffer-size=/S check=? compress-program= debug dictionary-order "
        "field-separator=/t files0-from= general-numeric-sort help human-numeric-sort "
        "ignore-case ignore-leading-blanks ignore-nonprinting key=/k merge month-sort "
        "numeric-sort output=/o parallel= random-sort random-source= reverse sort= stable "
        "temporary-directory=/T unique version version-sort zero-terminated",
        # -T DIR is where sort writes its temporary files: a path like any other.
        {"S": TEXT, "k": TEXT, "t": TEXT, "batch-size": NUMBER, "check": TEXT,
         "parallel": NUMBER, "sort": TEXT}),
    "uniq": program("0123456789Dcdf:is:uw:z", "all-repeated=? check-chars=/w count group=? "
                    "help ignore-case repeated skip-chars=/s skip-fields=/f unique version "
                    "zero-terminated",
                    {"f": NUMBER, "s": NUMBER, "w": NUMBER, "all-repeated": TEXT,
                     "group": TEXT}),
    "file": program(
        "0CEF:LNP:SZbcde:f:hiklm:nprsvz",
        "apple brief checking-printout compile debug dereference exclude=/e exclude-quiet= "
        "extension files-from=/f help keep-going list magic-file=/m mime mime-encoding "
        "mime-type no-buffer no-dereference no-pad no-sandbox parameter=/P preserve-date "
        "print0 raw separator=/F special-files uncompress uncompress-noreport version",
        {"F": TEXT, "P": TEXT, "e": TEXT, "m": PATHS, "exclude-quiet": TEXT}),
    "date": program("I::Rd:f:r:s:u", "date=/d debug file=/f help iso-8601=?/I reference=/r "
                    "resolution rfc-2822 rfc-3339= rfc-822 rfc-email set=/s uct universal "
                    "utc version", {"I": TEXT, "s": TEXT, "rfc-3339": TEXT}),
    "base64": program("diw:", "decode help ignore-garbage version wrap=/w", {"w": NUMBER}),
    "man": program(
        # man -m is a list of folders to BSD man (systems to man-db): checked as paths.
        "7C:DE:H::IKL:M:P:R:S:T::VWX::Zacde:fhiklm:p:r:s:tuw",
        "all apropos ascii catman config-file=/C debug default ditroff encoding=/E "
        "extension=/e global-apropos gxditview=?/X help html=?/H ignore-case local-file "
        "locale=/L location location-cat manpath=/M match-case names-only nh nj "
        "no-hyphenation no-justification no-subpages pager=/P path preprocessor=/p "
        "program-name= prompt=/r recode= regex sections=/S systems=/m troff troff-device=?/T "
        "update usage version warnings=? whatis where where-cat wildcard",
        {**dict.fromkeys("EHLRSTXeprs", TEXT), "M": PATHS, "m": PATHS,
         "program-name": TEXT, "recode": TEXT, "warnings": TEXT}),
    "tree": program(
        "acdfghilnpqrstuvxACDFJNQSUXRL:P:I:H:T:o:",
        "help version inodes device noreport nolinks dirsfirst filesfirst si du prune "
        "ignore-case matchdirs fromtabfile fromfile metafirst gitignore info fflinks "
        "hyperlink opt-toggle condense acl selinux filelimit= charset= timefmt= sort= "
        "gitfile= infofile= hintro= houtro= scheme= authority= compress=",
        {"L": NUMBER, **dict.fromkeys("PIHT", TEXT), "filelimit": NUMBER, "charset": TEXT,
         "timefmt": TEXT, "sort": TEXT, "scheme": TEXT, "authority": TEXT,
         "compress": NUMBER},
        # tree's own parser: no abbreviations, and a cluster's values are the next words.
        abbreviate=False, next_word_values=True),
    "cd": program("LPe@"),
    "which": program("as", abbreviate=False),
}

# Programs none of whose words are files they read.
NO_FILES = frozenset({"echo", "tr", "seq", "expr", "basename", "dirname", "true", "false",
                      "numfmt", "pwd", "whoami", "id", "uname"})

# git: revisions and paths are both operands, all checked. Only options whose values are
# surely not files are described; the log family matches names exactly (no abbreviations),
# and a value an option takes only as --opt=value is OPTIONAL here, so that a word after
# it stays an operand.
_GIT_LOG = program(
    "n:S:G:l:O:L:U::M::C::B::X::EFPRDWabcgimprstuvwz0123456789",
    "max-count= skip= max-age= min-age= since= since-as-filter= after= before= until= "
    "date= author= committer= grep= grep-reflog= encoding= glob= exclude= exclude-hidden= "
    "word-diff-regex= diff-algorithm= diff-filter= format=? pretty=? expand-tabs=? notes=? "
    "show-notes=? branches=? tags=? remotes=? decorate=? abbrev=? color=? color-words=? "
    "word-diff=? color-moved=? stat=? dirstat=? dirstat-by-file=? submodule=? "
    "ignore-submodules=? find-renames=? find-copies=? break-rewrites=? min-parents=? "
    "max-parents=? no-walk=? unified=? ws-error-highlight=? src-prefix=? dst-prefix=? "
    "line-prefix=? anchored=? find-object=? color-moved-ws=? diff-merges=? "
    "decorate-refs=? decorate-refs-exclude=? ignore-matching-lines=? inter-hunk-context=? "
    # flags, so that common commands are read exactly (an unknown option makes every
    # value count); calling a value-taking option a flag only makes its value an operand
    "oneline graph no-graph all name-only name-status patch no-patch raw numstat shortstat "
    "summary compact-summary patch-with-stat patch-with-raw cached staged merge-base "
    "no-index follow no-follow reverse first-parent no-merges merges abbrev-commit "
    "no-abbrev-commit relative-date no-decorate clear-decorations topo-order date-order "
    "author-date-order full-history simplify-merges simplify-by-decoration boundary "
    "left-right left-only right-only cherry cherry-pick cherry-mark parents children "
    "walk-reflogs reflog root no-color full-index binary check exit-code quiet minimal "
    "patience histogram ignore-all-space ignore-space-change ignore-space-at-eol "
    "ignore-blank-lines ignore-cr-at-eol no-renames find-copies-harder irreversible-delete "
    "text no-ext-diff no-textconv function-context show-signature no-prefix default-prefix "
    "full-diff show-pulls log-size count cc combined-all-paths no-notes standard-notes "
    "pickaxe-all pickaxe-regex regexp-ignore-case basic-regexp extended-regexp "
    "fixed-strings perl-regexp all-match invert-grep ignore-missing dense sparse do-walk "
    "use-mailmap mailmap source no-expand-tabs",
    {"n": NUMBER, "l": NUMBER, "U": NUMBER, **dict.fromkeys("SGMCBX", TEXT),
     **dict.fromkeys(("max-count", "skip", "max-age", "min-age", "expand-tabs", "abbrev",
                      "min-parents", "max-parents", "unified", "inter-hunk-context"), NUMBER),
     **dict.fromkeys((
         "since", "since-as-filter", "after", "before", "until", "date", "author", "committer",
         "grep", "grep-reflog", "encoding", "glob", "exclude", "exclude-hidden",
         "word-diff-regex", "diff-algorithm", "diff-filter", "format", "pretty", "notes",
         "show-notes", "branches", "tags", "remotes", "decorate", "color", "color-words",
         "word-diff", "color-moved", "stat", "dirstat", "dirstat-by-file", "submodule",
         "ignore-submodules", "find-renames", "find-copies", "break-rewrites", "no-walk",
         "ws-error-highlight", "src-prefix", "dst-prefix", "line-prefix", "anchored",
         "find-object", "color-moved-ws", "diff-merges", "decorate-refs",
         "decorate-refs-exclude", "ignore-matching-lines"), TEXT)},
    abbreviate=False)
# shortlog reads the revision options too, after its own: -n, -e, -c are flags there.
_GIT_SHORTLOG = Program(
    {**_GIT_LOG.short, "n": FLAG, "e": FLAG, "w": Option(OPTIONAL, TEXT)},
    {**_GIT_LOG.long, "committer": FLAG, "numbered": FLAG, "email": FLAG,
     "group": Option(REQUIRED, TEXT)}, abbreviate=False)
_GIT_GREP = program(
    # parse-options: abbreviations and --no-NAME; -O runs a pager (refused before this).
    "A:B:C:EFGHILO::PWacef:hilm:noqrvwz0123456789e:",
    "cached no-index untracked exclude-standard recurse-submodules invert-match ignore-case "
    "word-regexp text textconv recursive max-depth= extended-regexp basic-regexp "
    "fixed-strings perl-regexp line-number column full-name files-with-matches name-only "
    "files-without-match null only-matching count color=? break heading context=/C "
    "before-context=/B after-context=/A threads= show-function function-context and or not "
    "quiet all-match debug open-files-in-pager=?/O ext-grep max-count=/m",
    {"A": NUMBER, "B": NUMBER, "C": NUMBER, "m": NUMBER, "e": PATTERN, "f": PATTERN_FILE,
     "max-depth": NUMBER, "threads": NUMBER, "color": TEXT},
    negations=True, pattern_first=True)
_GIT_ANY = program("", abbreviate=False)  # every option unknown: every other word a path
GIT: dict[str, Program] = {
    "log": _GIT_LOG, "show": _GIT_LOG, "diff": _GIT_LOG, "shortlog": _GIT_SHORTLOG,
    "grep": _GIT_GREP,
    "status": program("sbvzu::", "short branch show-stash long verbose null no-column "
                      "ahead-behind no-ahead-behind renames no-renames porcelain=? "
                      "untracked-files=?/u ignore-submodules=? ignored=? column=? "
                      "find-renames=?", {"u": TEXT, **dict.fromkeys((
                          "porcelain", "ignore-submodules", "ignored", "column",
                          "find-renames"), TEXT)}, abbreviate=False),
    "branch": program("alrv", "all list remotes verbose", abbreviate=False),
    "tag": program("l", "list", abbreviate=False),
    "remote": program("v", "verbose", abbreviate=False),
    "ls-files": _GIT_ANY, "rev-parse": _GIT_ANY, "blame": _GIT_ANY, "describe": _GIT_ANY,
}


def _git(args: list[str]) -> list[str]:
    while args and args[0] in ("--no-pager", "-P"):
        args = args[1:]
    if args == ["--version"]:
        return []
    prog = GIT.get(args[0]) if args else None
    return paths_of(prog, args[1:]) if prog is not None else list(args)


# find: starting points, then an expression; predicates named here take one word that is
# not a file, or one that is. Anything else (an unknown predicate, a starting point, the
# words of -exec) is a path.
_FIND_TEXT = frozenset({
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
    "-lname", "-ilname", "-type", "-xtype", "-perm", "-user", "-group", "-uid", "-gid",
    "-size", "-mtime", "-atime", "-ctime", "-mmin", "-amin", "-cmin", "-used", "-inum",
    "-links", "-maxdepth", "-mindepth", "-fstype", "-context", "-printf", "-regextype", "-D"})
_FIND_PATH = frozenset({"-newer", "-anewer", "-cnewer", "-samefile", "-fprint", "-fprint0",
                        "-fls", "-files0-from"})
_FIND_FLAGS = frozenset({
    "-print", "-print0", "-ls", "-prune", "-quit", "-delete", "-depth", "-d", "-xdev",
    "-mount", "-follow", "-daystart", "-empty", "-executable", "-readable", "-writable",
    "-nouser", "-nogroup", "-true", "-false", "-not", "-a", "-and", "-o", "-or", "!", "(",
    ")", ",", "-ignore_readdir_race", "-noignore_readdir_race", "-noleaf", "-warn",
    "-nowarn", "-H", "-L", "-P", "-help", "--help", "-version", "--version"})
_FIND_NEWER = re.compile(r"-newer[aBcm]([aBcmt])")


def _find(args: list[str]) -> list[str]:
    found: list[tuple[int, str]] = []
    i = 0
    while i < len(args):
        word, newer = args[i], _FIND_NEWER.fullmatch(args[i])
        if word in _FIND_TEXT or (newer and newer.group(1) == "t"):  # -newermt DATE
            i += 2
        elif word in _FIND_PATH or newer or word == "-fprintf":  # -fprintf FILE FORMAT
            found += [(i + 1, args[i + 1])] if i + 1 < len(args) else []
            i += 3 if word == "-fprintf" else 2
        elif word in _FIND_FLAGS or re.fullmatch(r"-O\d*", word):
            i += 1
        else:
            found.append((i, word))
            i += 1
    return tidy(found)


# test's operators; every other word may be a file it looks at (test -f /etc/shadow).
_TEST_OPERATORS = frozenset(
    "! ( ) = == != < > -a -o -eq -ne -lt -le -gt -ge -ef -nt -ot -b -c -d -e -f -g -h -k -p "
    "-r -s -t -u -w -x -G -L -N -O -S -z -n -v -R".split())


def path_words(name: str, args: list[str]) -> list[str]:
    """The words of a command ``name args`` that may name files, as values (see the module
    docstring); for a program not known here, every word as it stands."""
    if name in NO_FILES:
        return []
    if name == "git":
        return _git(args)
    if name == "find":
        return _find(args)
    if name == "test":
        return tidy((i, a) for i, a in enumerate(args) if a not in _TEST_OPERATORS)
    prog = PROGRAMS.get(name)
    return paths_of(prog, args) if prog is not None else list(args)
