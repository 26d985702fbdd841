"""Builds the three hand-written foreign databases (clinic, shop, school) and their questions in BIRD layout.

Run from the repository root: python assets/chase_sql/foreign/build.py
Table and column names are ordinary English chosen by hand for this file, not by the world generator; rows are
drawn from the hand-written lists below with a fixed seed, so the output is the same on every run.
"""

from __future__ import annotations

import csv
import json
import random
import shutil
import sqlite3
from pathlib import Path

OUT = Path(__file__).resolve().parent

CLINIC = {
    "doctors": ("doctor_id INTEGER PRIMARY KEY, name TEXT, specialty TEXT, hired_on TEXT", {
        "doctor_id": "doctor id", "name": "full name of the doctor", "specialty": "medical specialty",
        "hired_on": "date the doctor was hired (YYYY-MM-DD)"}),
    "patients": ("patient_id INTEGER PRIMARY KEY, name TEXT, birth_date TEXT, city TEXT", {
        "patient_id": "patient id", "name": "full name of the patient", "birth_date": "date of birth (YYYY-MM-DD)",
        "city": "city the patient lives in"}),
    "appointments": ("appointment_id INTEGER PRIMARY KEY, patient_id INTEGER REFERENCES patients(patient_id), "
                     "doctor_id INTEGER REFERENCES doctors(doctor_id), visit_date TEXT, fee REAL, status TEXT", {
        "appointment_id": "appointment id", "patient_id": "the patient", "doctor_id": "the doctor",
        "visit_date": "date of the visit (YYYY-MM-DD)", "fee": "fee charged in dollars",
        "status": "'done', 'cancelled' or 'missed'"}),
    "prescriptions": ("prescription_id INTEGER PRIMARY KEY, "
                      "appointment_id INTEGER REFERENCES appointments(appointment_id), drug TEXT, days INTEGER", {
        "prescription_id": "prescription id", "appointment_id": "the appointment it was written at",
        "drug": "name of the drug", "days": "number of days the drug is taken"}),
}

SHOP = {
    "customers": ("customer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, joined_on TEXT", {
        "customer_id": "customer id", "name": "customer name", "country": "country of the customer",
        "joined_on": "date the customer signed up (YYYY-MM-DD)"}),
    "products": ("product_id INTEGER PRIMARY KEY, name TEXT, category TEXT, price REAL", {
        "product_id": "product id", "name": "product name", "category": "product category",
        "price": "unit price in euros"}),
    "orders": ("order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id), "
               "order_date TEXT, status TEXT", {
        "order_id": "order id", "customer_id": "the customer who ordered", "order_date": "date of the order",
        "status": "'shipped', 'pending' or 'returned'"}),
    "order_items": ("item_id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders(order_id), "
                    "product_id INTEGER REFERENCES products(product_id), quantity INTEGER", {
        "item_id": "line id", "order_id": "the order", "product_id": "the product",
        "quantity": "number of units"}),
}

SCHOOL = {
    "teachers": ("teacher_id INTEGER PRIMARY KEY, name TEXT, subject TEXT", {
        "teacher_id": "teacher id", "name": "teacher name", "subject": "subject the teacher teaches"}),
    "students": ("student_id INTEGER PRIMARY KEY, name TEXT, grade INTEGER, birth_date TEXT", {
        "student_id": "student id", "name": "student name", "grade": "school year, 9 to 12",
        "birth_date": "date of birth (YYYY-MM-DD)"}),
    "courses": ("course_id INTEGER PRIMARY KEY, title TEXT, teacher_id INTEGER REFERENCES teachers(teacher_id), "
                "credits INTEGER", {
        "course_id": "course id", "title": "course title", "teacher_id": "the teacher of the course",
        "credits": "credits the course is worth"}),
    "enrollments": ("enrollment_id INTEGER PRIMARY KEY, student_id INTEGER REFERENCES students(student_id), "
                    "course_id INTEGER REFERENCES courses(course_id), score REAL, term TEXT", {
        "enrollment_id": "enrollment id", "student_id": "the student", "course_id": "the course",
        "score": "final score out of 100", "term": "'fall 2023', 'spring 2024' or 'fall 2024'"}),
}

FIRST = ["Alice", "Brian", "Carmen", "David", "Elena", "Frank", "Grace", "Hector", "Irene", "James", "Karen",
         "Louis", "Maria", "Nathan", "Olivia", "Peter", "Rosa", "Samuel", "Tara", "Victor"]
LAST = ["Walker", "Moreno", "Chen", "Patel", "Nguyen", "Fischer", "Okafor", "Silva", "Kowalski", "Haddad"]


def people(rng: random.Random, n: int) -> list[str]:
    names = [f"{f} {s}" for f in FIRST for s in LAST]
    rng.shuffle(names)
    return names[:n]


def day(rng: random.Random, years: tuple[int, int]) -> str:
    return f"{rng.randint(*years)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def clinic_rows(rng: random.Random) -> dict[str, list[tuple]]:
    specialties = ["cardiology", "pediatrics", "dermatology", "neurology", "cardiology", "pediatrics"]
    doctors = [(i + 1, n, specialties[i], day(rng, (2010, 2022))) for i, n in enumerate(people(rng, 6))]
    cities = ["Boston", "Denver", "Austin", "Seattle"]
    patients = [(i + 1, n, day(rng, (1950, 2015)), rng.choice(cities)) for i, n in enumerate(people(rng, 30))]
    appointments = [(i + 1, rng.randint(1, 30), rng.randint(1, 6), day(rng, (2022, 2024)),
                     float(rng.choice([80, 120, 150, 200, 250])), rng.choice(["done"] * 6 + ["cancelled", "missed"]))
                    for i in range(80)]
    drugs = ["Amoxicillin", "Ibuprofen", "Lisinopril", "Metformin", "Cetirizine"]
    done = [a[0] for a in appointments if a[5] == "done"]
    prescriptions = [(i + 1, rng.choice(done), rng.choice(drugs), rng.choice([5, 7, 10, 14, 30])) for i in range(50)]
    return {"doctors": doctors, "patients": patients, "appointments": appointments, "prescriptions": prescriptions}


def shop_rows(rng: random.Random) -> dict[str, list[tuple]]:
    countries = ["France", "Germany", "Spain", "Italy"]
    customers = [(i + 1, n, rng.choice(countries), day(rng, (2019, 2023))) for i, n in enumerate(people(rng, 25))]
    catalogue = [("Desk Lamp", "lighting", 29.9), ("Floor Lamp", "lighting", 79.0),
                 ("Office Chair", "furniture", 149.0), ("Bookshelf", "furniture", 119.5),
                 ("Coffee Table", "furniture", 89.0), ("Wool Blanket", "textiles", 45.0),
                 ("Cotton Towel", "textiles", 12.5), ("Wall Clock", "decor", 24.0), ("Picture Frame", "decor", 9.9),
                 ("Ceramic Vase", "decor", 34.0)]
    products = [(i + 1, *p) for i, p in enumerate(catalogue)]
    orders = [(i + 1, rng.randint(1, 25), day(rng, (2022, 2024)), rng.choice(["shipped"] * 5 + ["pending", "returned"]))
              for i in range(60)]
    items, k = [], 0
    for o in orders:
        for p in rng.sample(range(1, 11), rng.randint(1, 3)):
            k += 1
            items.append((k, o[0], p, rng.randint(1, 4)))
    return {"customers": customers, "products": products, "orders": orders, "order_items": items}


def school_rows(rng: random.Random) -> dict[str, list[tuple]]:
    subjects = ["mathematics", "history", "biology", "music", "mathematics"]
    teachers = [(i + 1, n, subjects[i]) for i, n in enumerate(people(rng, 5))]
    students = [(i + 1, n, rng.randint(9, 12), day(rng, (2006, 2010))) for i, n in enumerate(people(rng, 40))]
    titles = [("Algebra", 1, 4), ("Geometry", 5, 4), ("World History", 2, 3), ("Biology", 3, 4), ("Choir", 4, 2),
              ("Statistics", 1, 3), ("Ecology", 3, 3)]
    courses = [(i + 1, *t) for i, t in enumerate(titles)]
    enrollments, k = [], 0
    for s in students:
        for c in rng.sample(range(1, 8), rng.randint(1, 4)):
            k += 1
            enrollments.append((k, s[0], c, float(rng.randint(45, 100)),
                                rng.choice(["fall 2023", "spring 2024", "fall 2024"])))
    return {"teachers": teachers, "students": students, "courses": courses, "enrollments": enrollments}


# (db, question, evidence, gold SQL, difficulty); written by hand for these databases
QUESTIONS = [
    ("clinic", "How many doctors work in cardiology?", "cardiology refers to specialty = 'cardiology'",
     "SELECT COUNT(*) FROM doctors WHERE specialty = 'cardiology'", "simple"),
    ("clinic", "How many patients live in Denver?", "",
     "SELECT COUNT(*) FROM patients WHERE city = 'Denver'", "simple"),
    ("clinic", "List the names of the patients born before 1960.", "born before 1960 refers to birth_date < '1960'",
     "SELECT name FROM patients WHERE birth_date < '1960'", "simple"),
    ("clinic", "How many appointments were cancelled?", "cancelled refers to status = 'cancelled'",
     "SELECT COUNT(*) FROM appointments WHERE status = 'cancelled'", "simple"),
    ("clinic", "What is the average fee of the appointments in 2023?",
     "in 2023 refers to visit_date LIKE '2023%'; average fee refers to AVG(fee)",
     "SELECT AVG(fee) FROM appointments WHERE visit_date LIKE '2023%'", "moderate"),
    ("clinic", "Which doctor was hired most recently?", "most recently refers to MAX(hired_on)",
     "SELECT name FROM doctors ORDER BY hired_on DESC LIMIT 1", "simple"),
    ("clinic", "How many appointments did patients from Austin have?", "",
     "SELECT COUNT(*) FROM appointments AS T1 JOIN patients AS T2 ON T1.patient_id = T2.patient_id "
     "WHERE T2.city = 'Austin'", "moderate"),
    ("clinic", "What is the total fee of the done appointments with pediatrics doctors?",
     "done refers to status = 'done'; total fee refers to SUM(fee)",
     "SELECT SUM(T1.fee) FROM appointments AS T1 JOIN doctors AS T2 ON T1.doctor_id = T2.doctor_id "
     "WHERE T2.specialty = 'pediatrics' AND T1.status = 'done'", "moderate"),
    ("clinic", "How many prescriptions of Ibuprofen last more than 7 days?", "last more than 7 days refers to days > 7",
     "SELECT COUNT(*) FROM prescriptions WHERE drug = 'Ibuprofen' AND days > 7", "simple"),
    ("clinic", "Which drug was prescribed for the most days in total?", "the most days refers to MAX(SUM(days))",
     "SELECT drug FROM prescriptions GROUP BY drug ORDER BY SUM(days) DESC LIMIT 1", "moderate"),
    ("clinic", "List the names of the doctors who have a missed appointment.", "missed refers to status = 'missed'",
     "SELECT DISTINCT T2.name FROM appointments AS T1 JOIN doctors AS T2 ON T1.doctor_id = T2.doctor_id "
     "WHERE T1.status = 'missed'", "moderate"),
    ("clinic", "How many different patients got a prescription of Metformin?", "",
     "SELECT COUNT(DISTINCT T1.patient_id) FROM appointments AS T1 JOIN prescriptions AS T2 "
     "ON T1.appointment_id = T2.appointment_id WHERE T2.drug = 'Metformin'", "challenging"),

    ("shop", "How many customers are from Germany?", "",
     "SELECT COUNT(*) FROM customers WHERE country = 'Germany'", "simple"),
    ("shop", "What is the price of the Office Chair?", "",
     "SELECT price FROM products WHERE name = 'Office Chair'", "simple"),
    ("shop", "List the names of the products in the decor category.", "decor refers to category = 'decor'",
     "SELECT name FROM products WHERE category = 'decor'", "simple"),
    ("shop", "How many orders were returned?", "returned refers to status = 'returned'",
     "SELECT COUNT(*) FROM orders WHERE status = 'returned'", "simple"),
    ("shop", "What is the most expensive product?", "most expensive refers to MAX(price)",
     "SELECT name FROM products ORDER BY price DESC LIMIT 1", "simple"),
    ("shop", "How many orders were placed in 2023?", "in 2023 refers to order_date LIKE '2023%'",
     "SELECT COUNT(*) FROM orders WHERE order_date LIKE '2023%'", "simple"),
    ("shop", "What is the average price of the furniture products?", "average price refers to AVG(price)",
     "SELECT AVG(price) FROM products WHERE category = 'furniture'", "simple"),
    ("shop", "How many orders did customers from Spain place?", "",
     "SELECT COUNT(*) FROM orders AS T1 JOIN customers AS T2 ON T1.customer_id = T2.customer_id "
     "WHERE T2.country = 'Spain'", "moderate"),
    ("shop", "How many Desk Lamps were ordered in total?", "in total refers to SUM(quantity)",
     "SELECT SUM(T1.quantity) FROM order_items AS T1 JOIN products AS T2 ON T1.product_id = T2.product_id "
     "WHERE T2.name = 'Desk Lamp'", "moderate"),
    ("shop", "Which customer placed the most orders?", "the most orders refers to MAX(COUNT(order_id))",
     "SELECT T2.name FROM orders AS T1 JOIN customers AS T2 ON T1.customer_id = T2.customer_id "
     "GROUP BY T1.customer_id ORDER BY COUNT(T1.order_id) DESC LIMIT 1", "challenging"),

    ("school", "How many students are in grade 10?", "grade 10 refers to grade = 10",
     "SELECT COUNT(*) FROM students WHERE grade = 10", "simple"),
    ("school", "Which subject does the teacher of Choir teach?", "",
     "SELECT T2.subject FROM courses AS T1 JOIN teachers AS T2 ON T1.teacher_id = T2.teacher_id "
     "WHERE T1.title = 'Choir'", "moderate"),
    ("school", "How many credits is the Biology course worth?", "",
     "SELECT credits FROM courses WHERE title = 'Biology'", "simple"),
    ("school", "List the titles of the courses worth 4 credits.", "worth 4 credits refers to credits = 4",
     "SELECT title FROM courses WHERE credits = 4", "simple"),
    ("school", "How many teachers teach mathematics?", "",
     "SELECT COUNT(*) FROM teachers WHERE subject = 'mathematics'", "simple"),
    ("school", "How many enrollments were in fall 2024?", "fall 2024 refers to term = 'fall 2024'",
     "SELECT COUNT(*) FROM enrollments WHERE term = 'fall 2024'", "simple"),
    ("school", "What is the average score in the Algebra course?", "average score refers to AVG(score)",
     "SELECT AVG(T1.score) FROM enrollments AS T1 JOIN courses AS T2 ON T1.course_id = T2.course_id "
     "WHERE T2.title = 'Algebra'", "moderate"),
    ("school", "How many students scored below 50 in any course?", "below 50 refers to score < 50",
     "SELECT COUNT(DISTINCT student_id) FROM enrollments WHERE score < 50", "moderate"),
    ("school", "List the names of the students born in 2008.", "born in 2008 refers to birth_date LIKE '2008%'",
     "SELECT name FROM students WHERE birth_date LIKE '2008%'", "simple"),
    ("school", "Which course has the most enrollments?", "the most enrollments refers to MAX(COUNT(enrollment_id))",
     "SELECT T2.title FROM enrollments AS T1 JOIN courses AS T2 ON T1.course_id = T2.course_id "
     "GROUP BY T1.course_id ORDER BY COUNT(T1.enrollment_id) DESC LIMIT 1", "challenging"),
]


def write_db(root: Path, db: str, tables: dict, rows: dict[str, list[tuple]]) -> None:
    folder = root / "dev_databases" / db
    (folder / "database_description").mkdir(parents=True)
    conn = sqlite3.connect(folder / f"{db}.sqlite")
    for name, (columns, _) in tables.items():
        conn.execute(f"CREATE TABLE {name} ({columns})")
        width = len(rows[name][0])
        conn.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' * width)})", rows[name])
    conn.commit()
    conn.close()
    for name, (columns, described) in tables.items():
        with (folder / "database_description" / f"{name}.csv").open("w", newline="", encoding="utf-8") as fh:
            out = csv.writer(fh)
            out.writerow(["original_column_name", "column_name", "column_description", "data_format",
                          "value_description"])
            for col, text in described.items():
                kind = next(p.split()[1] for p in columns.split(", ") if p.split()[0] == col).lower()
                out.writerow([col, col.replace("_", " "), text, "integer" if kind == "integer" else
                              "real" if kind == "real" else "text", ""])


def main() -> None:
    shutil.rmtree(OUT / "dev_databases", ignore_errors=True)
    write_db(OUT, "clinic", CLINIC, clinic_rows(random.Random(11)))
    write_db(OUT, "shop", SHOP, shop_rows(random.Random(12)))
    write_db(OUT, "school", SCHOOL, school_rows(random.Random(13)))
    items = [{"question_id": i, "db_id": db, "question": q, "evidence": ev, "SQL": sql, "difficulty": d}
             for i, (db, q, ev, sql, d) in enumerate(QUESTIONS)]
    for item in items:  # every gold query runs and answers something
        conn = sqlite3.connect(OUT / "dev_databases" / item["db_id"] / f"{item['db_id']}.sqlite")
        rows = conn.execute(item["SQL"]).fetchall()
        conn.close()
        assert rows and rows[0][0] not in (None, 0), (item["question"], rows)
    (OUT / "dev.json").write_text(json.dumps(items, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
