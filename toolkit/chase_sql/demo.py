# ruff: noqa: E501  (data tables read best one row per line)
"""The shipped demo set: three small SQLite databases in BIRD layout, written from scratch here.

`write_demo(DIR)` creates DIR/dev.json, DIR/dev_databases/<db>/<db>.sqlite and
DIR/dev_databases/<db>/database_description/*.csv (one UTF-8, one UTF-8 with BOM, one cp1252),
deterministically. The rows are invented; nothing is taken from BIRD or Spider.
"""

from __future__ import annotations

import csv
import io
import json
import random
import sqlite3
from pathlib import Path

LIBRARY = {
    "schema": """
CREATE TABLE authors (author_id INTEGER PRIMARY KEY, name TEXT, country TEXT, birth_year INTEGER);
CREATE TABLE books (book_id INTEGER PRIMARY KEY, title TEXT, author_id INTEGER, genre TEXT, year_published INTEGER,
  copies INTEGER, FOREIGN KEY (author_id) REFERENCES authors(author_id));
CREATE TABLE members (member_id INTEGER PRIMARY KEY, full_name TEXT, city TEXT, joined_year INTEGER);
CREATE TABLE loans (loan_id INTEGER PRIMARY KEY, book_id INTEGER, member_id INTEGER, loan_date TEXT, returned INTEGER,
  FOREIGN KEY (book_id) REFERENCES books(book_id), FOREIGN KEY (member_id) REFERENCES members(member_id));
""",
    "authors": [(1, "Gabriel García Márquez", "Colombia", 1927), (2, "Chimamanda Ngozi Adichie", "Nigeria", 1977),
                (3, "Haruki Murakami", "Japan", 1949), (4, "Ursula K. Le Guin", "United States", 1929),
                (5, "Fyodor Dostoevsky", "Russia", 1821), (6, "Toni Morrison", "United States", 1931),
                (7, "Isabel Allende", "Chile", 1942), (8, "Kazuo Ishiguro", "United Kingdom", 1954)],
    "books": [(1, "One Hundred Years of Solitude", 1, "Magical realism", 1967, 4),
              (2, "Love in the Time of Cholera", 1, "Romance", 1985, 2),
              (3, "Half of a Yellow Sun", 2, "Historical fiction", 2006, 3),
              (4, "Americanah", 2, "Literary fiction", 2013, 5), (5, "Kafka on the Shore", 3, "Magical realism", 2002, 2),
              (6, "Norwegian Wood", 3, "Literary fiction", 1987, 3),
              (7, "The Left Hand of Darkness", 4, "Science fiction", 1969, 2),
              (8, "The Dispossessed", 4, "Science fiction", 1974, 1), (9, "A Wizard of Earthsea", 4, "Fantasy", 1968, 4),
              (10, "Crime and Punishment", 5, "Literary fiction", 1866, 3),
              (11, "The Brothers Karamazov", 5, "Literary fiction", 1880, 2), (12, "Beloved", 6, "Historical fiction", 1987, 3),
              (13, "Song of Solomon", 6, "Literary fiction", 1977, 1),
              (14, "The House of the Spirits", 7, "Magical realism", 1982, 2),
              (15, "Never Let Me Go", 8, "Science fiction", 2005, 3), (16, "The Remains of the Day", 8, "Literary fiction", 1989, 2)],
    "members": [(1, "Amara Okafor", "Lagos", 2019), (2, "Lena Fischer", "Hamburg", 2020), (3, "Diego Ramírez", "Bogotá", 2018),
                (4, "Yuki Tanaka", "Osaka", 2021), (5, "Sofia Rossi", "Hamburg", 2017), (6, "Omar Haddad", "Lagos", 2022),
                (7, "Ingrid Berg", "Oslo", 2016), (8, "Mateo Silva", "Bogotá", 2023), (9, "Hannah Cohen", "Oslo", 2020),
                (10, "Ravi Patel", "Hamburg", 2021)],
    "descriptions": {
        "authors": [("author_id", "author id", "unique id of the author", "integer", ""),
                    ("name", "author name", "full name of the author", "text", ""),
                    ("country", "", "country of origin", "text", ""),
                    ("birth_year", "birth year", "year the author was born", "integer", "")],
        "books": [("book_id", "book id", "", "integer", ""), ("title", "", "title of the book", "text", ""),
                  ("author_id", "author id", "the author who wrote the book", "integer", ""),
                  ("genre", "", "literary genre", "text", ""),
                  ("year_published", "year published", "year of first publication", "integer", ""),
                  ("copies", "", "number of copies the library owns", "integer", "")],
        "members": [("member_id", "member id", "", "integer", ""), ("full_name", "full name", "member's name", "text", ""),
                    ("city", "", "city where the member lives", "text", ""),
                    ("joined_year", "joined year", "year the member joined the library", "integer", "")],
        "loans": [("loan_id", "loan id", "", "integer", ""), ("book_id", "book id", "borrowed book", "integer", ""),
                  ("member_id", "member id", "borrowing member", "integer", ""),
                  ("loan_date", "loan date", "date of the loan", "date", "YYYY-MM-DD"),
                  ("returned", "", "whether the book came back", "integer", "1: returned; 0: not returned yet")],
    },
}

TRANSIT = {
    "schema": """
CREATE TABLE lines (line_id INTEGER PRIMARY KEY, name TEXT, mode TEXT);
CREATE TABLE stations (station_id INTEGER PRIMARY KEY, name TEXT, district TEXT, opened_year INTEGER, accessible INTEGER);
CREATE TABLE stops (line_id INTEGER, station_id INTEGER, stop_order INTEGER, PRIMARY KEY (line_id, station_id),
  FOREIGN KEY (line_id) REFERENCES lines(line_id), FOREIGN KEY (station_id) REFERENCES stations(station_id));
CREATE TABLE ridership (station_id INTEGER, year INTEGER, riders INTEGER, PRIMARY KEY (station_id, year),
  FOREIGN KEY (station_id) REFERENCES stations(station_id));
""",
    "lines": [(1, "Harbour Line", "metro"), (2, "Ring Line", "metro"), (3, "Line 7", "tram"), (4, "Airport Express", "bus"),
              (5, "Night Owl", "bus")],
    "stations": [(1, "Nordhavn", "Harbour", 1998, 1), (2, "Central Station", "Centre", 1911, 1), (3, "Kongens Torv", "Centre", 1960, 0),
                 (4, "Østerbro Park", "Østerbro", 2007, 1), (5, "Amager Strand", "Amager", 2002, 1),
                 (6, "Valby Bakke", "Valby", 1975, 0), (7, "Frederiksberg Allé", "Frederiksberg", 1983, 1),
                 (8, "Airport Terminal", "Amager", 2007, 1), (9, "Brønshøj Square", "Brønshøj", 1956, 0),
                 (10, "University Campus", "Amager", 2015, 1)],
    "stops": [(1, 1, 1), (1, 2, 2), (1, 3, 3), (1, 5, 4), (2, 2, 1), (2, 4, 2), (2, 7, 3), (2, 6, 4), (2, 3, 5),
              (3, 9, 1), (3, 7, 2), (3, 2, 3), (4, 2, 1), (4, 10, 2), (4, 8, 3), (5, 3, 1), (5, 6, 2), (5, 9, 3)],
    "descriptions": {
        "lines": [("line_id", "line id", "", "integer", ""), ("name", "line name", "", "text", ""),
                  ("mode", "", "kind of vehicle", "text", "metro, tram or bus")],
        "stations": [("station_id", "station id", "", "integer", ""), ("name", "station name", "", "text", ""),
                     ("district", "", "city district of the station", "text", ""),
                     ("opened_year", "opened year", "year the station opened", "integer", ""),
                     ("accessible", "", "step-free access", "integer", "1: step-free (wheelchair accessible); 0: not")],
        "stops": [("line_id", "line id", "", "integer", ""), ("station_id", "station id", "", "integer", ""),
                  ("stop_order", "stop order", "position of the station along the line, from 1", "integer", "")],
        "ridership": [("station_id", "station id", "", "integer", ""), ("year", "", "calendar year", "integer", ""),
                      ("riders", "", "passengers boarding at the station that year", "integer", "")],
    },
}

BAKERY = {
    "schema": """
CREATE TABLE products (product_id INTEGER PRIMARY KEY, name TEXT, category TEXT, price REAL);
CREATE TABLE stores (store_id INTEGER PRIMARY KEY, city TEXT, manager TEXT, opened TEXT);
CREATE TABLE sales (sale_id INTEGER PRIMARY KEY, store_id INTEGER, product_id INTEGER, sale_date TEXT, quantity INTEGER,
  FOREIGN KEY (store_id) REFERENCES stores(store_id), FOREIGN KEY (product_id) REFERENCES products(product_id));
""",
    "products": [(1, "Pain au chocolat", "Viennoiserie", 2.4), (2, "Croissant", "Viennoiserie", 1.9),
                 (3, "Sourdough loaf", "Bread", 5.5), (4, "Baguette", "Bread", 2.2), (5, "Cinnamon roll", "Pastry", 3.1),
                 (6, "Cheesecake slice", "Cake", 4.8), (7, "Carrot cake slice", "Cake", 4.2), (8, "Rye bread", "Bread", 4.9),
                 (9, "Éclair au café", "Pastry", 3.6)],
    "stores": [(1, "Zürich", "Marta Keller", "2015-03-01"), (2, "Genève", "Luc Moreau", "2017-09-15"),
               (3, "Basel", "Anna Weber", "2019-05-20"), (4, "Lausanne", "Paolo Conti", "2021-11-02")],
    "descriptions": {
        "products": [("product_id", "product id", "", "integer", ""), ("name", "product name", "", "text", ""),
                     ("category", "", "product family", "text", ""), ("price", "", "unit price in Swiss francs — CHF", "real", "")],
        "stores": [("store_id", "store id", "", "integer", ""), ("city", "", "city of the shop", "text", "e.g. Zürich, Genève"),
                   ("manager", "", "store manager", "text", ""), ("opened", "", "opening date", "date", "YYYY-MM-DD")],
        "sales": [("sale_id", "sale id", "", "integer", ""), ("store_id", "store id", "", "integer", ""),
                  ("product_id", "product id", "", "integer", ""), ("sale_date", "sale date", "", "date", "YYYY-MM-DD"),
                  ("quantity", "", "units sold in that sale", "integer", "")],
    },
}

QUESTIONS = [
    # library
    ("library", "How many books does the library hold in the Science fiction genre?", "",
     "SELECT COUNT(*) FROM books WHERE genre = 'Science fiction'", "simple"),
    ("library", "List the titles of the books written by Gabriel Garcia Marquez.", "",
     "SELECT T1.title FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id "
     "WHERE T2.name = 'Gabriel García Márquez'", "simple"),
    ("library", "Which country is the author Fyodor Dostoyevski from?", "",
     "SELECT country FROM authors WHERE name = 'Fyodor Dostoevsky'", "simple"),
    ("library", "What is the title of the oldest book in the collection?",
     "oldest book refers to MIN(year_published)",
     "SELECT title FROM books ORDER BY year_published ASC LIMIT 1", "simple"),
    ("library", "How many members live in Hamburg?", "",
     "SELECT COUNT(*) FROM members WHERE city = 'Hamburg'", "simple"),
    ("library", "How many copies of books by Chimamanda Adichie does the library own in total?",
     "in total refers to SUM(copies)",
     "SELECT SUM(T1.copies) FROM books AS T1 JOIN authors AS T2 ON T1.author_id = T2.author_id "
     "WHERE T2.name = 'Chimamanda Ngozi Adichie'", "moderate"),
    ("library", "Which members have borrowed a book that they have not returned yet? List their full names.",
     "not returned yet refers to returned = 0",
     "SELECT DISTINCT T1.full_name FROM members AS T1 JOIN loans AS T2 ON T1.member_id = T2.member_id "
     "WHERE T2.returned = 0", "moderate"),
    ("library", "How many different books were borrowed by members living in Bogota?", "",
     "SELECT COUNT(DISTINCT T2.book_id) FROM members AS T1 JOIN loans AS T2 ON T1.member_id = T2.member_id "
     "WHERE T1.city = 'Bogotá'", "moderate"),
    ("library", "Which author born in the United States has written the most books?",
     "most books refers to MAX(COUNT(book_id))",
     "SELECT T1.name FROM authors AS T1 JOIN books AS T2 ON T1.author_id = T2.author_id "
     "WHERE T1.country = 'United States' GROUP BY T1.author_id ORDER BY COUNT(T2.book_id) DESC LIMIT 1", "moderate"),
    ("library", "For each genre, how many loans were made in 2023? List genre and number of loans.",
     "in 2023 refers to loan_date LIKE '2023%'",
     "SELECT T1.genre, COUNT(*) FROM books AS T1 JOIN loans AS T2 ON T1.book_id = T2.book_id "
     "WHERE T2.loan_date LIKE '2023%' GROUP BY T1.genre", "moderate"),
    ("library", "What is the title of the most borrowed book of the Magical realism genre?",
     "most borrowed refers to MAX(COUNT(loan_id))",
     "SELECT T1.title FROM books AS T1 JOIN loans AS T2 ON T1.book_id = T2.book_id WHERE T1.genre = 'Magical realism' "
     "GROUP BY T1.book_id ORDER BY COUNT(T2.loan_id) DESC LIMIT 1", "challenging"),
    ("library", "What percentage of all loans were made by members who joined before 2020?",
     "percentage = DIVIDE(COUNT(joined_year < 2020), COUNT(loan_id)) * 100",
     "SELECT CAST(SUM(CASE WHEN T1.joined_year < 2020 THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(T2.loan_id) "
     "FROM members AS T1 JOIN loans AS T2 ON T1.member_id = T2.member_id", "challenging"),
    ("library", "Which authors have no book that was ever borrowed by a member from Oslo?", "",
     "SELECT name FROM authors WHERE author_id NOT IN (SELECT T1.author_id FROM books AS T1 JOIN loans AS T2 "
     "ON T1.book_id = T2.book_id JOIN members AS T3 ON T2.member_id = T3.member_id WHERE T3.city = 'Oslo')",
     "challenging"),
    ("library", "List the titles of books published after the average publication year, newest first.",
     "average publication year refers to AVG(year_published)",
     "SELECT title FROM books WHERE year_published > (SELECT AVG(year_published) FROM books) "
     "ORDER BY year_published DESC", "challenging"),
    # transit
    ("transit", "How many stations are wheelchair accessible?", "wheelchair accessible refers to accessible = 1",
     "SELECT COUNT(*) FROM stations WHERE accessible = 1", "simple"),
    ("transit", "Which district is Osterbro Park station in?", "",
     "SELECT district FROM stations WHERE name = 'Østerbro Park'", "simple"),
    ("transit", "List the names of the tram lines.", "",
     "SELECT name FROM lines WHERE mode = 'tram'", "simple"),
    ("transit", "Which station opened first?", "opened first refers to MIN(opened_year)",
     "SELECT name FROM stations ORDER BY opened_year ASC LIMIT 1", "simple"),
    ("transit", "How many stations are in the Amager district?", "",
     "SELECT COUNT(*) FROM stations WHERE district = 'Amager'", "simple"),
    ("transit", "What is the total number of riders at Nordhaven station across all years?", "",
     "SELECT SUM(T2.riders) FROM stations AS T1 JOIN ridership AS T2 ON T1.station_id = T2.station_id "
     "WHERE T1.name = 'Nordhavn'", "moderate"),
    ("transit", "List the stations served by the Ring Line in stop order.", "",
     "SELECT T3.name FROM lines AS T1 JOIN stops AS T2 ON T1.line_id = T2.line_id JOIN stations AS T3 "
     "ON T2.station_id = T3.station_id WHERE T1.name = 'Ring Line' ORDER BY T2.stop_order", "moderate"),
    ("transit", "How many lines stop at Kongens Torv?", "",
     "SELECT COUNT(DISTINCT T1.line_id) FROM stops AS T1 JOIN stations AS T2 ON T1.station_id = T2.station_id "
     "WHERE T2.name = 'Kongens Torv'", "moderate"),
    ("transit", "Which station had the most riders in 2023?", "most riders refers to MAX(riders)",
     "SELECT T1.name FROM stations AS T1 JOIN ridership AS T2 ON T1.station_id = T2.station_id WHERE T2.year = 2023 "
     "ORDER BY T2.riders DESC LIMIT 1", "moderate"),
    ("transit", "What was the average yearly ridership of stations in the Centre district?",
     "average yearly ridership refers to AVG(riders)",
     "SELECT AVG(T2.riders) FROM stations AS T1 JOIN ridership AS T2 ON T1.station_id = T2.station_id "
     "WHERE T1.district = 'Centre'", "moderate"),
    ("transit", "Which metro line serves the largest number of stations?", "metro refers to mode = 'metro'",
     "SELECT T1.name FROM lines AS T1 JOIN stops AS T2 ON T1.line_id = T2.line_id WHERE T1.mode = 'metro' "
     "GROUP BY T1.line_id ORDER BY COUNT(T2.station_id) DESC LIMIT 1", "challenging"),
    ("transit", "By how many riders did ridership at Central Station change from 2022 to 2023?",
     "change = riders in 2023 - riders in 2022",
     "SELECT SUM(CASE WHEN T2.year = 2023 THEN T2.riders ELSE 0 END) - SUM(CASE WHEN T2.year = 2022 THEN T2.riders "
     "ELSE 0 END) FROM stations AS T1 JOIN ridership AS T2 ON T1.station_id = T2.station_id "
     "WHERE T1.name = 'Central Station'", "challenging"),
    ("transit", "Which stations that are not accessible are served by a bus line?",
     "not accessible refers to accessible = 0; bus line refers to mode = 'bus'",
     "SELECT DISTINCT T3.name FROM lines AS T1 JOIN stops AS T2 ON T1.line_id = T2.line_id JOIN stations AS T3 "
     "ON T2.station_id = T3.station_id WHERE T1.mode = 'bus' AND T3.accessible = 0", "challenging"),
    ("transit", "What percentage of the stations opened after 2000?",
     "percentage = DIVIDE(COUNT(opened_year > 2000), COUNT(station_id)) * 100",
     "SELECT CAST(SUM(CASE WHEN opened_year > 2000 THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(station_id) FROM stations",
     "challenging"),
    # bakery
    ("bakery", "What is the price of a Pain au chocolate?", "",
     "SELECT price FROM products WHERE name = 'Pain au chocolat'", "simple"),
    ("bakery", "Who manages the store in Zurich?", "", "SELECT manager FROM stores WHERE city = 'Zürich'", "simple"),
    ("bakery", "How many products are in the Bread category?", "",
     "SELECT COUNT(*) FROM products WHERE category = 'Bread'", "simple"),
    ("bakery", "Which product is the most expensive?", "most expensive refers to MAX(price)",
     "SELECT name FROM products ORDER BY price DESC LIMIT 1", "simple"),
    ("bakery", "Which stores opened after 2016? List their cities.", "after 2016 refers to opened > '2016-12-31'",
     "SELECT city FROM stores WHERE opened > '2016-12-31'", "simple"),
    ("bakery", "How many croissants were sold in total in the Geneve store?", "in total refers to SUM(quantity)",
     "SELECT SUM(T1.quantity) FROM sales AS T1 JOIN stores AS T2 ON T1.store_id = T2.store_id JOIN products AS T3 "
     "ON T1.product_id = T3.product_id WHERE T2.city = 'Genève' AND T3.name = 'Croissant'", "moderate"),
    ("bakery", "What was the revenue of the Basel store in March 2024?",
     "revenue = SUM(quantity * price); March 2024 refers to sale_date LIKE '2024-03%'",
     "SELECT SUM(T1.quantity * T3.price) FROM sales AS T1 JOIN stores AS T2 ON T1.store_id = T2.store_id "
     "JOIN products AS T3 ON T1.product_id = T3.product_id WHERE T2.city = 'Basel' AND T1.sale_date LIKE '2024-03%'",
     "moderate"),
    ("bakery", "For each category, what is the average product price?", "",
     "SELECT category, AVG(price) FROM products GROUP BY category", "moderate"),
    ("bakery", "Which store sold the most units of Eclair au cafe?", "most units refers to MAX(SUM(quantity))",
     "SELECT T2.city FROM sales AS T1 JOIN stores AS T2 ON T1.store_id = T2.store_id JOIN products AS T3 "
     "ON T1.product_id = T3.product_id WHERE T3.name = 'Éclair au café' GROUP BY T2.store_id "
     "ORDER BY SUM(T1.quantity) DESC LIMIT 1", "moderate"),
    ("bakery", "Which product categories were never sold in Lausanne?", "",
     "SELECT DISTINCT category FROM products WHERE category NOT IN (SELECT T3.category FROM sales AS T1 "
     "JOIN stores AS T2 ON T1.store_id = T2.store_id JOIN products AS T3 ON T1.product_id = T3.product_id "
     "WHERE T2.city = 'Lausanne')", "challenging"),
    ("bakery", "What share of the units sold in Zurich were Viennoiserie, in percent?",
     "share = DIVIDE(SUM(quantity where category = 'Viennoiserie'), SUM(quantity)) * 100",
     "SELECT CAST(SUM(CASE WHEN T3.category = 'Viennoiserie' THEN T1.quantity ELSE 0 END) AS REAL) * 100 / "
     "SUM(T1.quantity) FROM sales AS T1 JOIN stores AS T2 ON T1.store_id = T2.store_id JOIN products AS T3 "
     "ON T1.product_id = T3.product_id WHERE T2.city = 'Zürich'", "challenging"),
    ("bakery", "Which products sold more units in total than the Sourdough loaf? List their names.",
     "units in total refers to SUM(quantity)",
     "SELECT T2.name FROM sales AS T1 JOIN products AS T2 ON T1.product_id = T2.product_id GROUP BY T1.product_id "
     "HAVING SUM(T1.quantity) > (SELECT SUM(T3.quantity) FROM sales AS T3 JOIN products AS T4 "
     "ON T3.product_id = T4.product_id WHERE T4.name = 'Sourdough loaf')", "challenging"),
    ("bakery", "Which manager's store had the highest average quantity per sale?",
     "highest average quantity per sale refers to MAX(AVG(quantity))",
     "SELECT T2.manager FROM sales AS T1 JOIN stores AS T2 ON T1.store_id = T2.store_id GROUP BY T1.store_id "
     "ORDER BY AVG(T1.quantity) DESC LIMIT 1", "challenging"),
]


def _library_rows(rng: random.Random) -> list[tuple]:
    loans, lid = [], 1
    for _ in range(40):
        book, member = rng.randint(1, 16), rng.randint(1, 10)
        year = rng.choice([2022, 2023, 2023, 2024])
        date = f"{year}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        loans.append((lid, book, member, date, 0 if rng.random() < 0.2 else 1))
        lid += 1
    return loans


def _ridership_rows(rng: random.Random) -> list[tuple]:
    rows = []
    for sid in range(1, 11):
        base = rng.randint(20, 400) * 1000
        for year in (2021, 2022, 2023):
            rows.append((sid, year, base + rng.randint(-15, 25) * 1000))
    return rows


def _sales_rows(rng: random.Random) -> list[tuple]:
    rows = []
    for sid in range(1, 121):
        store, product = rng.randint(1, 4), rng.randint(1, 9)
        if store == 4 and product in (6, 7):
            product = 5  # Lausanne sells no cake
        month = rng.randint(1, 6)
        rows.append((sid, store, product, f"2024-{month:02d}-{rng.randint(1, 28):02d}", rng.randint(1, 12)))
    return rows


def write_description_csvs(db_dir: Path, descriptions: dict, encoding: str = "utf-8") -> None:
    """BIRD's database_description/<table>.csv, one row (name, readable name, description, format, values) per column."""
    out = db_dir / "database_description"
    out.mkdir(parents=True, exist_ok=True)
    for table, rows in descriptions.items():
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["original_column_name", "column_name", "column_description", "data_format",
                         "value_description"])
        writer.writerows(rows)
        (out / f"{table}.csv").write_bytes(buf.getvalue().encode(encoding))


def _make_db(path: Path, schema: str, tables: dict[str, list[tuple]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        path.unlink()
    conn = sqlite3.connect(path)
    conn.executescript(schema)
    for table, rows in tables.items():
        if rows:
            marks = ",".join("?" * len(rows[0]))
            conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
    conn.commit()
    conn.execute("VACUUM")
    conn.close()


def write_demo(out: str | Path, seed: int = 7) -> Path:
    out = Path(out)
    rng = random.Random(seed)
    dbs = out / "dev_databases"
    lib, tra, bak = LIBRARY, TRANSIT, BAKERY
    _make_db(dbs / "library" / "library.sqlite", lib["schema"], {
        "authors": lib["authors"], "books": lib["books"], "members": lib["members"], "loans": _library_rows(rng)})
    _make_db(dbs / "transit" / "transit.sqlite", tra["schema"], {
        "lines": tra["lines"], "stations": tra["stations"], "stops": tra["stops"],
        "ridership": _ridership_rows(rng)})
    _make_db(dbs / "bakery" / "bakery.sqlite", bak["schema"], {
        "products": bak["products"], "stores": bak["stores"], "sales": _sales_rows(rng)})
    write_description_csvs(dbs / "library", lib["descriptions"], "utf-8")
    write_description_csvs(dbs / "transit", tra["descriptions"], "utf-8-sig")
    write_description_csvs(dbs / "bakery", bak["descriptions"], "cp1252")
    items = [{"question_id": i, "db_id": db, "question": q, "evidence": ev, "SQL": sql, "difficulty": diff}
             for i, (db, q, ev, sql, diff) in enumerate(QUESTIONS)]
    (out / "dev.json").write_text(json.dumps(items, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return out
