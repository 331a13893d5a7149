"""The store: peewee models, database selection and schema migrations."""
