"""Source of the shipped mini-benchmark: small correct Python projects, each with tests and the bugs
injected into it (one or two edits). `benchgen` turns these into git bundles and SWE-bench instances.

Each bug is (path, correct text, buggy text); the correct text occurs exactly once in the file.
"""

from __future__ import annotations

PROJECTS = [
    {
        "name": "stats",
        "problem": "stats.mean returns a value that is too large: mean([2, 4, 6]) gives 6.0 instead of 4.0.",
        "files": {
            "stats/__init__.py": "from stats.core import mean, median, spread\n",
            "stats/core.py": (
                "def mean(xs):\n"
                "    if not xs:\n"
                "        raise ValueError('empty')\n"
                "    return sum(xs) / len(xs)\n"
                "\n\n"
                "def median(xs):\n"
                "    ys = sorted(xs)\n"
                "    mid = len(ys) // 2\n"
                "    if len(ys) % 2 == 1:\n"
                "        return ys[mid]\n"
                "    return (ys[mid - 1] + ys[mid]) / 2\n"
                "\n\n"
                "def spread(xs):\n"
                "    return max(xs) - min(xs)\n"
            ),
            "tests/test_core.py": (
                "from stats import mean, median, spread\n\n\n"
                "def test_mean():\n    assert mean([2, 4, 6]) == 4.0\n\n\n"
                "def test_mean_single():\n    assert mean([5]) == 5.0\n\n\n"
                "def test_median():\n    assert median([3, 1, 2]) == 2\n    assert median([4, 1, 3, 2]) == 2.5\n\n\n"
                "def test_spread():\n    assert spread([3, 9, 4]) == 6\n"
            ),
        },
        "bugs": [("stats/core.py", "return sum(xs) / len(xs)", "return sum(xs) / (len(xs) - 1)")],
        "fail_to_pass": ["tests/test_core.py::test_mean", "tests/test_core.py::test_mean_single"],
        "pass_to_pass": ["tests/test_core.py::test_median", "tests/test_core.py::test_spread"],
    },
    {
        "name": "clamp",
        "problem": "clamp(x, lo, hi) does not raise values below lo: clamp(-5, 0, 10) returns -5.",
        "files": {
            "mathx/__init__.py": "",
            "mathx/bounds.py": (
                "def clamp(x, lo, hi):\n"
                "    if lo > hi:\n"
                "        raise ValueError('lo > hi')\n"
                "    if x < lo:\n"
                "        return lo\n"
                "    if x > hi:\n"
                "        return hi\n"
                "    return x\n"
                "\n\n"
                "def in_range(x, lo, hi):\n"
                "    return lo <= x <= hi\n"
            ),
            "tests/test_bounds.py": (
                "import pytest\n\nfrom mathx.bounds import clamp, in_range\n\n\n"
                "def test_clamp_low():\n    assert clamp(-5, 0, 10) == 0\n\n\n"
                "def test_clamp_high():\n    assert clamp(50, 0, 10) == 10\n\n\n"
                "def test_clamp_inside():\n    assert clamp(5, 0, 10) == 5\n\n\n"
                "def test_bad_bounds():\n    with pytest.raises(ValueError):\n        clamp(1, 5, 0)\n\n\n"
                "def test_in_range():\n    assert in_range(3, 0, 5) and not in_range(7, 0, 5)\n"
            ),
        },
        "bugs": [("mathx/bounds.py", "    if x < lo:\n", "    if x > lo:\n")],
        "fail_to_pass": ["tests/test_bounds.py::test_clamp_low", "tests/test_bounds.py::test_clamp_high",
                         "tests/test_bounds.py::test_clamp_inside"],
        "pass_to_pass": ["tests/test_bounds.py::test_bad_bounds", "tests/test_bounds.py::test_in_range"],
    },
    {
        "name": "chunks",
        "problem": "chunk('abcdef', 2) drops the first character: it returns ['bc', 'de', 'f'].",
        "files": {
            "textkit/__init__.py": "",
            "textkit/split.py": (
                "def chunk(s, width):\n"
                "    if width <= 0:\n"
                "        raise ValueError('width must be positive')\n"
                "    return [s[i:i + width] for i in range(0, len(s), width)]\n"
                "\n\n"
                "def words(s):\n"
                "    return [w for w in s.split() if w]\n"
            ),
            "tests/test_split.py": (
                "from textkit.split import chunk, words\n\n\n"
                "def test_chunk():\n    assert chunk('abcdef', 2) == ['ab', 'cd', 'ef']\n\n\n"
                "def test_chunk_uneven():\n    assert chunk('abcde', 2) == ['ab', 'cd', 'e']\n\n\n"
                "def test_words():\n    assert words(' a  b ') == ['a', 'b']\n"
            ),
        },
        "bugs": [("textkit/split.py", "range(0, len(s), width)", "range(1, len(s), width)")],
        "fail_to_pass": ["tests/test_split.py::test_chunk", "tests/test_split.py::test_chunk_uneven"],
        "pass_to_pass": ["tests/test_split.py::test_words"],
    },
    {
        "name": "inventory",
        "problem": "Inventory.total_value is wrong: two items of price 3 give 5 instead of 6.",
        "files": {
            "shop/__init__.py": "",
            "shop/inventory.py": (
                "class Inventory:\n"
                "    def __init__(self):\n"
                "        self.items = {}\n"
                "\n"
                "    def add(self, name, price, qty=1):\n"
                "        old_price, old_qty = self.items.get(name, (price, 0))\n"
                "        self.items[name] = (price, old_qty + qty)\n"
                "\n"
                "    def count(self):\n"
                "        return sum(q for _, q in self.items.values())\n"
                "\n"
                "    def total_value(self):\n"
                "        total = 0\n"
                "        for price, qty in self.items.values():\n"
                "            total += price * qty\n"
                "        return total\n"
            ),
            "tests/test_inventory.py": (
                "from shop.inventory import Inventory\n\n\n"
                "def test_total():\n    inv = Inventory()\n    inv.add('a', 3, 2)\n"
                "    assert inv.total_value() == 6\n\n\n"
                "def test_total_many():\n    inv = Inventory()\n    inv.add('a', 2, 5)\n    inv.add('b', 1, 1)\n"
                "    assert inv.total_value() == 11\n\n\n"
                "def test_count():\n    inv = Inventory()\n    inv.add('a', 3, 2)\n    inv.add('a', 3, 1)\n"
                "    assert inv.count() == 3\n"
            ),
        },
        "bugs": [("shop/inventory.py", "total += price * qty", "total += price + qty")],
        "fail_to_pass": ["tests/test_inventory.py::test_total", "tests/test_inventory.py::test_total_many"],
        "pass_to_pass": ["tests/test_inventory.py::test_count"],
    },
    {
        "name": "calendar",
        "problem": "is_leap(2024) returns False; ordinary leap years are not recognized.",
        "files": {
            "cal/__init__.py": "",
            "cal/years.py": (
                "def is_leap(year):\n"
                "    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n"
                "\n\n"
                "def days_in_year(year):\n"
                "    return 366 if is_leap(year) else 365\n"
            ),
            "tests/test_years.py": (
                "from cal.years import days_in_year, is_leap\n\n\n"
                "def test_leap_ordinary():\n    assert is_leap(2024)\n\n\n"
                "def test_days():\n    assert days_in_year(2024) == 366\n\n\n"
                "def test_not_leap():\n    assert not is_leap(2023)\n\n\n"
                "def test_century():\n    assert is_leap(2000) and not is_leap(1900)\n"
            ),
        },
        "bugs": [("cal/years.py", "year % 100 != 0 or", "year % 100 == 0 or")],
        "fail_to_pass": ["tests/test_years.py::test_leap_ordinary", "tests/test_years.py::test_days",
                         "tests/test_years.py::test_century"],
        "pass_to_pass": ["tests/test_years.py::test_not_leap"],
    },
    {
        "name": "greeting",
        "problem": "greet('Ada', 'Lovelace') says 'Hello, Ada Lovelace' but the format is 'Hello, Lovelace, Ada'.",
        "files": {
            "people/__init__.py": "",
            "people/names.py": (
                "def format_name(last, first):\n"
                "    return f'{last}, {first}'\n"
                "\n\n"
                "def greet(first, last):\n"
                "    return 'Hello, ' + format_name(last, first)\n"
                "\n\n"
                "def initials(first, last):\n"
                "    return first[0] + last[0]\n"
            ),
            "tests/test_names.py": (
                "from people.names import format_name, greet, initials\n\n\n"
                "def test_greet():\n    assert greet('Ada', 'Lovelace') == 'Hello, Lovelace, Ada'\n\n\n"
                "def test_format():\n    assert format_name('Turing', 'Alan') == 'Turing, Alan'\n\n\n"
                "def test_initials():\n    assert initials('Ada', 'Lovelace') == 'AL'\n"
            ),
        },
        "bugs": [("people/names.py", "format_name(last, first)\n\n", "format_name(first, last)\n\n")],
        "fail_to_pass": ["tests/test_names.py::test_greet"],
        "pass_to_pass": ["tests/test_names.py::test_format", "tests/test_names.py::test_initials"],
    },
    {
        "name": "bank",
        "problem": "Account.deposit lowers the balance and withdraw allows overdrafts.",
        "files": {
            "bank/__init__.py": "",
            "bank/account.py": (
                "class Account:\n"
                "    def __init__(self, balance=0):\n"
                "        self.balance = balance\n"
                "\n"
                "    def deposit(self, amount):\n"
                "        if amount <= 0:\n"
                "            raise ValueError('amount must be positive')\n"
                "        self.balance += amount\n"
                "        return self.balance\n"
                "\n"
                "    def withdraw(self, amount):\n"
                "        if amount > self.balance:\n"
                "            raise ValueError('insufficient funds')\n"
                "        self.balance -= amount\n"
                "        return self.balance\n"
            ),
            "tests/test_account.py": (
                "import pytest\n\nfrom bank.account import Account\n\n\n"
                "def test_deposit():\n    assert Account(10).deposit(5) == 15\n\n\n"
                "def test_overdraft():\n    with pytest.raises(ValueError):\n        Account(10).withdraw(50)\n\n\n"
                "def test_withdraw():\n    assert Account(10).withdraw(4) == 6\n\n\n"
                "def test_bad_deposit():\n    with pytest.raises(ValueError):\n        Account().deposit(0)\n"
            ),
        },
        "bugs": [("bank/account.py", "self.balance += amount", "self.balance -= amount"),
                 ("bank/account.py", "if amount > self.balance:", "if amount < self.balance:")],
        "fail_to_pass": ["tests/test_account.py::test_deposit", "tests/test_account.py::test_overdraft",
                         "tests/test_account.py::test_withdraw"],
        "pass_to_pass": ["tests/test_account.py::test_bad_deposit"],
    },
    {
        "name": "filters",
        "problem": "keep_valid returns the invalid entries instead of the valid ones.",
        "files": {
            "data/__init__.py": "",
            "data/filters.py": (
                "def is_valid(row):\n"
                "    return bool(row) and row.get('id') is not None\n"
                "\n\n"
                "def keep_valid(rows):\n"
                "    out = []\n"
                "    for row in rows:\n"
                "        if not is_valid(row):\n"
                "            continue\n"
                "        out.append(row)\n"
                "    return out\n"
            ),
            "tests/test_filters.py": (
                "from data.filters import is_valid, keep_valid\n\n\n"
                "def test_keep_valid():\n    rows = [{'id': 1}, {}, {'id': None}, {'id': 2}]\n"
                "    assert keep_valid(rows) == [{'id': 1}, {'id': 2}]\n\n\n"
                "def test_is_valid():\n    assert is_valid({'id': 0}) and not is_valid({})\n"
            ),
        },
        "bugs": [("data/filters.py", "        if not is_valid(row):\n", "        if is_valid(row):\n")],
        "fail_to_pass": ["tests/test_filters.py::test_keep_valid"],
        "pass_to_pass": ["tests/test_filters.py::test_is_valid"],
    },
    {
        "name": "palindrome",
        "problem": "is_palindrome('Level') is False; palindromes are reported as not palindromes.",
        "files": {
            "words/__init__.py": "",
            "words/checks.py": (
                "def normalize(s):\n"
                "    return ''.join(c.lower() for c in s if c.isalnum())\n"
                "\n\n"
                "def is_palindrome(s):\n"
                "    t = normalize(s)\n"
                "    return t == t[::-1]\n"
            ),
            "tests/test_checks.py": (
                "from words.checks import is_palindrome, normalize\n\n\n"
                "def test_palindrome():\n    assert is_palindrome('Level')\n\n\n"
                "def test_not_palindrome():\n    assert not is_palindrome('abc')\n\n\n"
                "def test_normalize():\n    assert normalize('A b!') == 'ab'\n"
            ),
        },
        "bugs": [("words/checks.py", "return t == t[::-1]", "return t != t[::-1]")],
        "fail_to_pass": ["tests/test_checks.py::test_palindrome", "tests/test_checks.py::test_not_palindrome"],
        "pass_to_pass": ["tests/test_checks.py::test_normalize"],
    },
    {
        "name": "bsearch",
        "problem": "find(a, x) returns -1 for the last element of a list and for one-element lists.",
        "files": {
            "algo/__init__.py": "",
            "algo/search.py": (
                "def find(a, x):\n"
                "    lo, hi = 0, len(a) - 1\n"
                "    while lo <= hi:\n"
                "        mid = (lo + hi) // 2\n"
                "        if a[mid] == x:\n"
                "            return mid\n"
                "        if a[mid] < x:\n"
                "            lo = mid + 1\n"
                "        else:\n"
                "            hi = mid - 1\n"
                "    return -1\n"
            ),
            "tests/test_search.py": (
                "from algo.search import find\n\n\n"
                "def test_last():\n    assert find([1, 3, 5, 7], 7) == 3\n\n\n"
                "def test_single():\n    assert find([4], 4) == 0\n\n\n"
                "def test_first():\n    assert find([1, 3, 5, 7], 1) == 0\n\n\n"
                "def test_missing():\n    assert find([1, 3, 5, 7], 4) == -1\n"
            ),
        },
        "bugs": [("algo/search.py", "while lo <= hi:", "while lo < hi:")],
        "fail_to_pass": ["tests/test_search.py::test_last", "tests/test_search.py::test_single",
                         "tests/test_search.py::test_first"],
        "pass_to_pass": ["tests/test_search.py::test_missing"],
    },
    {
        "name": "temperature",
        "problem": "Both temperature conversions are wrong: to_f(100) and to_c(212) give wrong results.",
        "files": {
            "units/__init__.py": "",
            "units/temp.py": (
                "def to_f(c):\n"
                "    return c * 9 / 5 + 32\n"
                "\n\n"
                "def to_c(f):\n"
                "    return (f - 32) * 5 / 9\n"
                "\n\n"
                "def to_k(c):\n"
                "    return c + 273.15\n"
            ),
            "tests/test_temp.py": (
                "from units.temp import to_c, to_f, to_k\n\n\n"
                "def test_to_f():\n    assert to_f(100) == 212\n\n\n"
                "def test_to_c():\n    assert to_c(212) == 100\n\n\n"
                "def test_to_k():\n    assert to_k(0) == 273.15\n"
            ),
        },
        "bugs": [("units/temp.py", "return c * 9 / 5 + 32", "return c * 9 / 5 - 32"),
                 ("units/temp.py", "return (f - 32) * 5 / 9", "return (f + 32) * 5 / 9")],
        "fail_to_pass": ["tests/test_temp.py::test_to_f", "tests/test_temp.py::test_to_c"],
        "pass_to_pass": ["tests/test_temp.py::test_to_k"],
    },
    {
        "name": "factorial",
        "problem": "factorial(5) returns 0 instead of 120; factorial(0) and factorial(1) are wrong too.",
        "files": {
            "numth/__init__.py": "",
            "numth/fact.py": (
                "def factorial(n):\n"
                "    if n < 0:\n"
                "        raise ValueError('negative')\n"
                "    total = 1\n"
                "    for k in range(2, n + 1):\n"
                "        total *= k\n"
                "    return total\n"
                "\n\n"
                "def is_even(n):\n"
                "    return n % 2 == 0\n"
            ),
            "tests/test_fact.py": (
                "import pytest\n\nfrom numth.fact import factorial, is_even\n\n\n"
                "def test_small():\n    assert factorial(0) == 1 and factorial(1) == 1\n\n\n"
                "def test_five():\n    assert factorial(5) == 120\n\n\n"
                "def test_negative():\n    with pytest.raises(ValueError):\n        factorial(-1)\n\n\n"
                "def test_even():\n    assert is_even(4) and not is_even(3)\n"
            ),
        },
        "bugs": [("numth/fact.py", "total = 1\n", "total = 0\n"),
                 ("numth/fact.py", "range(2, n + 1)", "range(2, n)")],
        "fail_to_pass": ["tests/test_fact.py::test_small", "tests/test_fact.py::test_five"],
        "pass_to_pass": ["tests/test_fact.py::test_negative", "tests/test_fact.py::test_even"],
    },
    {
        "name": "config",
        "problem": "parse_flag('maybe') returns False instead of raising: strict parsing should be the default.",
        "files": {
            "conf/__init__.py": "",
            "conf/flags.py": (
                "TRUE_WORDS = ('1', 'true', 'yes', 'on')\n"
                "\n\n"
                "def parse_flag(text, strict=True):\n"
                "    word = text.strip().lower()\n"
                "    if word in TRUE_WORDS:\n"
                "        return True\n"
                "    if strict and word not in ('0', 'false', 'no', 'off'):\n"
                "        raise ValueError(f'not a flag: {text}')\n"
                "    return False\n"
            ),
            "tests/test_flags.py": (
                "import pytest\n\nfrom conf.flags import parse_flag\n\n\n"
                "def test_yes():\n    assert parse_flag(' Yes ')\n\n\n"
                "def test_strict_default():\n    with pytest.raises(ValueError):\n        parse_flag('maybe')\n\n\n"
                "def test_no():\n    assert parse_flag('off') is False\n\n\n"
                "def test_lenient():\n    assert parse_flag('maybe', strict=False) is False\n"
            ),
        },
        "bugs": [("conf/flags.py", "def parse_flag(text, strict=True):", "def parse_flag(text, strict=False):")],
        "fail_to_pass": ["tests/test_flags.py::test_strict_default"],
        "pass_to_pass": ["tests/test_flags.py::test_yes", "tests/test_flags.py::test_no",
                         "tests/test_flags.py::test_lenient"],
    },
    {
        "name": "grid",
        "problem": "neighbors(0, 0) on a 3x3 grid includes cells outside the grid; corners have too many neighbours.",
        "files": {
            "board/__init__.py": "",
            "board/grid.py": (
                "def inside(r, c, rows, cols):\n"
                "    return 0 <= r < rows and 0 <= c < cols\n"
                "\n\n"
                "def neighbors(r, c, rows=3, cols=3):\n"
                "    out = []\n"
                "    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):\n"
                "        nr, nc = r + dr, c + dc\n"
                "        if inside(nr, nc, rows, cols):\n"
                "            out.append((nr, nc))\n"
                "    return out\n"
            ),
            "tests/test_grid.py": (
                "from board.grid import inside, neighbors\n\n\n"
                "def test_corner():\n    assert sorted(neighbors(0, 0)) == [(0, 1), (1, 0)]\n\n\n"
                "def test_center():\n    assert len(neighbors(1, 1)) == 4\n\n\n"
                "def test_inside():\n    assert inside(2, 2, 3, 3)\n"
            ),
        },
        "bugs": [("board/grid.py", "return 0 <= r < rows and 0 <= c < cols",
                  "return 0 <= r < rows and -1 <= c < cols")],
        "fail_to_pass": ["tests/test_grid.py::test_corner"],
        "pass_to_pass": ["tests/test_grid.py::test_center", "tests/test_grid.py::test_inside"],
    },
    {
        "name": "discount",
        "problem": "Orders of 100 or more should get a 10% discount, but price(100) returns 100.",
        "files": {
            "pricing/__init__.py": "",
            "pricing/rules.py": (
                "THRESHOLD = 100\n"
                "\n\n"
                "def rate(amount):\n"
                "    if amount >= THRESHOLD:\n"
                "        return 0.1\n"
                "    return 0.0\n"
                "\n\n"
                "def price(amount):\n"
                "    return round(amount * (1 - rate(amount)), 2)\n"
            ),
            "tests/test_rules.py": (
                "from pricing.rules import price, rate\n\n\n"
                "def test_threshold():\n    assert price(100) == 90.0\n\n\n"
                "def test_small():\n    assert price(50) == 50.0\n\n\n"
                "def test_large():\n    assert price(200) == 180.0\n\n\n"
                "def test_rate_large():\n    assert rate(500) == 0.1\n"
            ),
        },
        "bugs": [("pricing/rules.py", "if amount >= THRESHOLD:", "if amount > THRESHOLD:")],
        "fail_to_pass": ["tests/test_rules.py::test_threshold"],
        "pass_to_pass": ["tests/test_rules.py::test_small", "tests/test_rules.py::test_large",
                         "tests/test_rules.py::test_rate_large"],
    },
]
