"""The peer of bench/night-plan.ts: astroplan's PriorityScheduler on the same site, night and
observations, and the judge of both plans with astropy.

Reads JSON on stdin: {site: {latitude, longitude, elevation}, window: {start, end} (ISO UTC, the
night's astronomical darkness), observations: [{id, ra, dec, priority (10 highest), seconds,
minAltitude}], meridian: [{id, start, end}]}. Writes JSON on stdout: astroplan's plan, the seconds
it took, and for each plan the dark time it fills, its constraint violations and its priority
inversions, as astropy computes them.

Run with Debian's /usr/bin/python3 (python3-astroplan); IERS downloads stay off, so it runs offline.
"""

import json
import sys
import time

import numpy as np
from astropy.utils import iers

iers.conf.auto_download = False
iers.conf.auto_max_age = None

import astropy.units as u  # noqa: E402
from astropy.coordinates import AltAz, EarthLocation, SkyCoord, get_sun  # noqa: E402
from astropy.time import Time  # noqa: E402
from astroplan import FixedTarget, Observer, ObservingBlock  # noqa: E402
from astroplan.constraints import AltitudeConstraint, AtNightConstraint  # noqa: E402
from astroplan.scheduling import PriorityScheduler, Schedule, Transitioner  # noqa: E402

# Refraction at the site's altitude, as astronomy-engine's "normal" refraction assumes for targets.
PRESSURE = 0.78 * u.bar
TEMPERATURE = 10 * u.deg_C
MINUTE = 60.0

job = json.load(sys.stdin)
site = job["site"]
location = EarthLocation.from_geodetic(site["longitude"] * u.deg, site["latitude"] * u.deg, site["elevation"] * u.m)
observer = Observer(location=location, pressure=PRESSURE, temperature=TEMPERATURE, relative_humidity=0.2)
window = (Time(job["window"]["start"]), Time(job["window"]["end"]))
observations = {item["id"]: item for item in job["observations"]}

blocks = []
for item in job["observations"]:
    target = FixedTarget(SkyCoord(item["ra"] * u.deg, item["dec"] * u.deg), name=item["id"])
    # astroplan ranks 1 first; Meridian ranks 10 first.
    blocks.append(
        ObservingBlock(target, item["seconds"] * u.second, 11 - item["priority"], constraints=[AltitudeConstraint(min=item["minAltitude"] * u.deg)])
    )

started = time.perf_counter()
scheduler = PriorityScheduler(
    constraints=[AtNightConstraint.twilight_astronomical()], observer=observer, transitioner=Transitioner(), time_resolution=1 * u.minute
)
schedule = Schedule(*window)
scheduler(blocks, schedule)
astroplan_seconds = time.perf_counter() - started
astroplan_plan = [
    {"id": slot.block.target.name, "start": slot.start.isot + "Z", "end": slot.end.isot + "Z"}
    for slot in schedule.slots
    if isinstance(getattr(slot, "block", None), ObservingBlock)
]


def samples(start, end):
    """Every minute of a slot, and its end."""
    seconds = (end - start).to_value(u.s)
    offsets = np.append(np.arange(0, seconds, MINUTE), seconds)
    return start + offsets * u.s


def violations_of(plan):
    """Slots where, at any minute, the target stands below its minimum or the sun above -18° (geometric, as twilight is defined)."""
    bad = []
    for slot in plan:
        item = observations[slot["id"]]
        times = samples(Time(slot["start"]), Time(slot["end"]))
        frame = AltAz(obstime=times, location=location, pressure=PRESSURE, temperature=TEMPERATURE, relative_humidity=0.2)
        altitude = SkyCoord(item["ra"] * u.deg, item["dec"] * u.deg).transform_to(frame).alt.deg
        sun = get_sun(times).transform_to(AltAz(obstime=times, location=location)).alt.deg
        inside = (times >= window[0] - 60 * u.s) & (times <= window[1] + 60 * u.s)
        if altitude.min() < item["minAltitude"] or sun.max() > -18 or not inside.all():
            bad.append({"id": slot["id"], "lowestAltitude": round(float(altitude.min()), 3), "highestSun": round(float(sun.max()), 3)})
    return bad


def observable_through(item, start):
    """Whether the observation could run from `start` to its end with every constraint met, as astropy computes them."""
    end = start + item["seconds"] * u.s
    if end > window[1]:
        return False
    times = samples(start, end)
    frame = AltAz(obstime=times, location=location, pressure=PRESSURE, temperature=TEMPERATURE, relative_humidity=0.2)
    altitude = SkyCoord(item["ra"] * u.deg, item["dec"] * u.deg).transform_to(frame).alt.deg
    return bool(altitude.min() >= item["minAltitude"])


def inversions_of(plan):
    """Slots given to lower-priority work at a moment when a higher-priority observation left out of the plan could have run there."""
    planned = {slot["id"] for slot in plan}
    left_out = [item for item in job["observations"] if item["id"] not in planned]
    found = []
    for slot in plan:
        item = observations[slot["id"]]
        start = Time(slot["start"])
        for other in left_out:
            if other["priority"] > item["priority"] and observable_through(other, start):
                found.append({"slot": slot["id"], "priority": item["priority"], "leftOut": other["id"], "leftOutPriority": other["priority"]})
                break
    return found


def judge(plan):
    dark = (window[1] - window[0]).to_value(u.s)
    used = sum((Time(slot["end"]) - Time(slot["start"])).to_value(u.s) for slot in plan)
    priorities = [observations[slot["id"]]["priority"] for slot in plan]
    return {
        "slots": len(plan),
        "filled": used / dark,
        "prioritySum": int(sum(priorities)),
        "violations": violations_of(plan),
        "inversions": inversions_of(plan),
    }


json.dump(
    {
        "astroplan": {"seconds": astroplan_seconds, "plan": astroplan_plan, **judge(astroplan_plan)},
        "meridian": judge(job["meridian"]),
    },
    sys.stdout,
)
