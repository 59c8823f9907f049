"""Code tours that do not decay: steps anchored on symbols, verified like search results.

`tourfile` reads and writes the TOML format, `check` verifies and re-anchors steps, `record`
builds a tour from labelled review results, `codetour` converts to and from the CodeTour
editor format, and `render` prints a tour with each step's current code and citation header.
"""

from branchwise.review.tours.check import StepCheck, TourCheck, check_tour, fix_tour
from branchwise.review.tours.tourfile import TOURS_DIR, Step, Tour, load_tour, resolve_tour_path

__all__ = ["TOURS_DIR", "Step", "StepCheck", "Tour", "TourCheck", "check_tour", "fix_tour", "load_tour",
           "resolve_tour_path"]
