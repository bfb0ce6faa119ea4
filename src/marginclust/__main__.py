"""``python -m marginclust`` runs the command-line tool."""

from marginclust.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
