"""`python -m reslint` runs the command line."""

from reslint.cli import main

if __name__ == "__main__":
    main()
