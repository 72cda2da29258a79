"""ROUGE-1.5.5's stemmer: a WordNet 2.0 exception lookup, then Porter's algorithm as ROUGE
has it.

Porter (1980), "An algorithm for suffix stripping", Program 14(3). ROUGE-1.5.5 (Lin 2004) uses
Martin Porter's regular-expression version of the algorithm with one change of its own
(dated 02/14/2004 in ROUGE-1.5.5.pl): a word ending in -ement is not tried for -ment and -ent
in the same pass, and -ment / -ent are then tried one after the other. That is why NLTK's and
snowball's stemmers disagree with ROUGE on words such as "agreement" (ROUGE: "agreem").
Before stemming, ROUGE looks the word up in WordNet 2.0's exception lists (irregular forms:
"children" -> "child", "better" -> "well"); `data/wordnet20_exceptions.tsv` holds that table
as ROUGE's buildExeptionDB.pl builds it (adj, adv, noun, verb; a later file wins).
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

_c = "[^aeiou]"                 # consonant
_v = "[aeiouy]"                 # vowel
_C = f"{_c}[^aeiouy]*"          # consonant sequence
_V = f"{_v}[aeiou]*"            # vowel sequence
_MGR0 = re.compile(f"^({_C})?{_V}{_C}")                 # measure m > 0
_MEQ1 = re.compile(f"^({_C})?{_V}{_C}({_V})?$")         # m = 1
_MGR1 = re.compile(f"^({_C})?{_V}{_C}{_V}{_C}")         # m > 1
_VOWEL_IN_STEM = re.compile(f"^({_C})?{_v}")
_CVC = re.compile(f"^{_C}{_v}[^aeiouwxy]$")

_STEP2 = {"ational": "ate", "tional": "tion", "enci": "ence", "anci": "ance", "izer": "ize",
          "bli": "ble", "alli": "al", "entli": "ent", "eli": "e", "ousli": "ous",
          "ization": "ize", "ation": "ate", "ator": "ate", "alism": "al", "iveness": "ive",
          "fulness": "ful", "ousness": "ous", "aliti": "al", "iviti": "ive", "biliti": "ble",
          "logi": "log"}
_STEP3 = {"icate": "ic", "ative": "", "alize": "al", "iciti": "ic", "ical": "ic", "ful": "",
          "ness": ""}
# The alternations keep the order of ROUGE's regular expressions: with a leftmost match the
# first alternative that matches at the leftmost position wins, exactly as in Perl.
_STEP2_RE = re.compile("(ational|tional|enci|anci|izer|bli|alli|entli|eli|ousli|ization|ation"
                       "|ator|alism|iveness|fulness|ousness|aliti|iviti|biliti|logi)$")
_STEP3_RE = re.compile("(icate|ative|alize|iciti|ical|ful|ness)$")
_STEP4_RE = re.compile("(al|ance|ence|er|ic|able|ible|ant|ement|ou|ism|ate|iti|ous|ive|ize)$")


def porter_stem(word: str) -> str:
    """ROUGE-1.5.5's `stem`: Porter's algorithm with ROUGE's -ement change."""
    if len(word) < 3:
        return word
    initial_y = word[0] == "y"
    w = "Y" + word[1:] if initial_y else word     # an initial y is a consonant
    # Step 1a
    m = re.search("(ss|i)es$", w)
    if m:
        w = w[:m.start()] + m.group(1)
    else:
        m = re.search("([^s])s$", w)
        if m:
            w = w[:m.start()] + m.group(1)
    # Step 1b
    m = re.search("eed$", w)
    if m:
        if _MGR0.search(w[:m.start()]):
            w = w[:-1]
    else:
        m = re.search("(ed|ing)$", w)
        if m and _VOWEL_IN_STEM.search(w[:m.start()]):
            w = w[:m.start()]
            if re.search("(at|bl|iz)$", w):
                w += "e"
            elif re.search(r"([^aeiouylsz])\1$", w):
                w = w[:-1]
            elif _CVC.search(w):
                w += "e"
    # Step 1c
    m = re.search("y$", w)
    if m and _VOWEL_IN_STEM.search(w[:m.start()]):
        w = w[:m.start()] + "i"
    # Step 2 and 3
    for pattern, table in ((_STEP2_RE, _STEP2), (_STEP3_RE, _STEP3)):
        m = pattern.search(w)
        if m and _MGR0.search(w[:m.start()]):
            w = w[:m.start()] + table[m.group(1)]
    # Step 4, as modified in ROUGE-1.5.5: three rules tried in turn
    m = _STEP4_RE.search(w)
    if m and _MGR1.search(w[:m.start()]):
        w = w[:m.start()]
    m = re.search("ment$", w)
    if m and _MGR1.search(w[:m.start()]):
        w = w[:m.start()]
    m = re.search("ent$", w)
    if m:
        if _MGR1.search(w[:m.start()]):
            w = w[:m.start()]
    else:
        m = re.search("(s|t)(ion)$", w)
        if m:
            stem = w[:m.start()] + m.group(1)
            if _MGR1.search(stem):
                w = stem
    # Step 5
    m = re.search("e$", w)
    if m:
        stem = w[:m.start()]
        if _MGR1.search(stem) or (_MEQ1.search(stem) and not _CVC.search(stem)):
            w = stem
    if re.search("ll$", w) and _MGR1.search(w):
        w = w[:-1]
    if initial_y:
        w = "y" + w[1:]
    return w


@lru_cache(maxsize=1)
def wordnet_exceptions() -> dict[str, str]:
    """WordNet 2.0's irregular forms as ROUGE looks them up (only keys ROUGE can ever see:
    lower-case letters and digits, longer than 3 characters)."""
    text = resources.files(__package__).joinpath("data/wordnet20_exceptions.tsv").read_text(
        encoding="ascii")
    return dict(line.split("\t", 1) for line in text.splitlines())


@lru_cache(maxsize=65536)
def rouge_stem(token: str) -> str:
    """ROUGE-1.5.5's MorphStem: the WordNet exception if there is one, else Porter."""
    exception = wordnet_exceptions().get(token)
    return exception if exception is not None else porter_stem(token)
