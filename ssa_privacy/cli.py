"""The ``ssa-privacy`` command: ``ssa-privacy list`` and ``ssa-privacy run <study> [options]``."""

import argparse
import json
import sys
from pathlib import Path

from ssa_privacy import __version__
from ssa_privacy.studies import load_study, study_names


def build_parser():
    """Return the argument parser, with one ``run`` sub-command per study."""
    parser = argparse.ArgumentParser(
        prog="ssa-privacy", description="Privacy-aware estimation studies for SSA."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="list the studies")
    run = commands.add_parser("run", help="run a study")
    studies = run.add_subparsers(dest="study", required=True, metavar="STUDY")
    for name in study_names():
        module = load_study(name)
        sub = studies.add_parser(name, help=module.DESCRIPTION, description=module.DESCRIPTION)
        sub.add_argument(
            "--out",
            type=Path,
            default=Path("figures") / name,
            help="output folder (default: figures/%(prog)s)".replace("%(prog)s", name),
        )
        sub.add_argument("--seed", type=int, default=0, help="base random seed (default: 0)")
        sub.add_argument("--no-progress", action="store_true", help="hide progress bars")
        module.add_arguments(sub)
    return parser


def main(argv=None):
    """Entry point of the ``ssa-privacy`` console script."""
    args = build_parser().parse_args(argv)
    if args.command == "list":
        for name in study_names():
            print(f"{name:14s} {load_study(name).DESCRIPTION}")
        return 0
    options = vars(args)
    module = load_study(options.pop("study"))
    options.pop("command")
    progress = not options.pop("no_progress")
    summary = module.run(progress=progress, **options)
    print(json.dumps(summary, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
