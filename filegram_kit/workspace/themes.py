"""Small per-theme vocabularies that workspace documents are composed from.

A theme is data only: slot values (people, organisations, places, topics, extras), sentence and
title templates with `{slot}` placeholders, and pools for images, audio and video. Placeholders
that no theme defines (`{date}`, `{money}`, `{pct}`, ...) are drawn by `workspace.content`.
Everything is ASCII so that PDF core fonts can render it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Theme:
    name: str
    slots: dict[str, tuple[str, ...]]
    sentences: tuple[str, ...]
    titles: dict[str, tuple[str, ...]]  # kind -> title templates (note, email, event, table, report, slides, audio)
    images: tuple[tuple[str, str, str], ...]  # (title, description, motif)
    columns: tuple[tuple[str, str], ...]  # table header -> cell template
    videos: tuple[tuple[str, str, str], ...] = ()
    audio: tuple[tuple[str, str], ...] = ()  # (title, transcript) pairs; else titles["audio"] + theme sentences
    domain: str = "example.com"
    currency: str = "$"
    money: tuple[float, float, str] = (1_000, 90_000, "")  # low, high, suffix (" million" gives 1 decimal)
    year: int = 2024
    world: tuple[str, ...] = ()  # slots drawn once per task and then fixed (one adoption date, one vet)


def _t(text: str) -> tuple[str, ...]:
    """'a | b | c' -> ('a', 'b', 'c'): keeps the vocabularies compact and readable."""
    return tuple(part.strip() for part in text.split("|") if part.strip())


_ANALYSTS = _t("Daniel Chen | Priya Raman | Marcus Tan | Aiko Watanabe | Sophie Laurent | Rahul Mehta | Emily Wong")

INVESTMENT = Theme(
    "investment",
    slots={
        "person": _ANALYSTS,
        "org": _t("TSMC | Sea Ltd | Intel | Grab Holdings | DBS Group | Samsung Electronics | ASML | Nvidia | "
                  "MediaTek"),
        "place": _t("Singapore | Hsinchu | Taipei | Jakarta | Hong Kong | Santa Clara | Tokyo"),
        "topic": _t("foundry capacity | AI accelerator demand | gross margin trajectory | capex guidance | "
                    "e-commerce take rates | ASEAN digital payments | interest rate outlook | data center buildout | "
                    "advanced packaging | inventory correction | smartphone recovery | currency headwinds"),
        "metric": _t("revenue | gross margin | operating margin | free cash flow | EPS | capex | P/E | ROE"),
    },
    sentences=_t(
        "{org} reported {quarter} revenue of {money}, up {pct}% year on year. |"
        "Management guided {metric} to a range near {pct}% for next quarter. |"
        "Call with {person} on {date} about {topic}; they remain cautious. |"
        "Our target price for {org} moves to {currency}{num} on higher {metric}. |"
        "Key risk for {org}: {topic} could weigh on {metric} through {year}. |"
        "{person} flagged that {org2} is gaining share in {topic}. |"
        "Channel checks in {place} suggest {topic} is improving faster than consensus. |"
        "Consensus {metric} for {org} sits {pct}% below our estimate. |"
        "Follow up with {person} before {date} on the {org} model update. |"
        "Valuation: {org} trades at {num}x forward earnings versus a 5-year average of {num2}x. |"
        "The {place} conference on {date} focused on {topic}. |"
        "Position sizing: keep {org} at {pct}% of the portfolio until {topic} is clearer."),
    titles={
        "note": _t("{org} investment thesis | Notes on {topic} | {org} {quarter} earnings takeaways | "
                   "Watchlist review {iso} | Meeting notes with {person} | Sector view: {topic}"),
        "email": _t("Re: {org} model update | {topic} - quick question | {org} {quarter} results | "
                    "Client request on {topic} | Weekly sync agenda"),
        "event": _t("{org} earnings call | Investment committee | Broker meeting in {place}"),
        "table": _t("{org} quarterly financials | Portfolio holdings {iso} | Coverage list"),
        "report": _t("{org} {quarter} earnings report | {org} 10-Q filing {year} | Industry report: {topic} | "
                     "{org} annual report {year} | Broker research: {org}"),
        "slides": _t("{org} pitch deck"),
        "audio": _t("{org} {quarter} earnings call | Voice memo on {topic}"),
    },
    images=(("Chart: {org} revenue by quarter", "Bar chart of {org} revenue over eight quarters.", "chart"),
            ("Chart: {metric} comparison", "Line chart comparing {metric} of {org} and {org2}.", "chart"),
            ("Screenshot: {org} share price", "Trading screen showing {org} share price after results.", "screen")),
    columns=(("date", "{iso}"), ("company", "{org}"), ("metric", "{metric}"), ("value", "{num}"), ("note", "{topic}")),
    domain="northbridge-capital.com", money=(0.4, 40.0, " billion"),
)

LEGAL = Theme(
    "legal",
    slots={
        "person": _t("Chen Lihua | Rajesh Kumar | Mei Ling Tan | David Lim | Sarah Goh | Ahmad Ismail | Jessica Ong"),
        "org": _t("Tan v. Lim | Public Prosecutor v. Kumar | Re Chen Lihua (custody) | Goh v. Goh | "
                  "Ong Holdings v. Seah Construction | Public Prosecutor v. Ismail"),
        "place": _t("State Courts | Family Justice Courts | High Court | Legal Aid Bureau | Supreme Court Registry"),
        "topic": _t("custody arrangements | maintenance order | drug trafficking charge | bail application | "
                    "mitigation plea | discovery of documents | mediation session | division of matrimonial assets | "
                    "sentencing submissions | witness statements"),
        "stage": _t("pre-trial conference | mediation | trial | awaiting judgment | appeal | closed"),
        "statute": _t("Misuse of Drugs Act | Women's Charter | Criminal Procedure Code | Evidence Act | "
                      "Employment Act | Legal Aid and Advice Act"),
    },
    sentences=_t(
        "{org} is at the {stage} stage; next hearing on {date} at the {place}. |"
        "Client {person} confirmed the documents for the {topic} by {date}. |"
        "The court ordered {topic} under the {statute}. |"
        "Filing deadline for {org}: {date}. |"
        "{person} called about the {topic} and is anxious about costs of {money}. |"
        "Opposing counsel proposed a settlement of {money} in {org}. |"
        "Section {num} of the {statute} applies to the {topic}. |"
        "Witness {person} will attend the {place} on {date}. |"
        "Legal aid approved for {person}; contribution fixed at {money}. |"
        "Prepare a chronology of the {topic} for {org} before the next hearing. |"
        "The judgment in {org} turned on the {topic}. |"
        "Remind {person} to bring identity documents to the {place}."),
    titles={
        "note": _t("Case notes: {org} | Chronology of {org} | Research on {topic} | Call log {iso} | "
                   "Summary of the {statute}"),
        "email": _t("Re: {org} - next steps | Hearing date confirmation | Documents for {topic} | "
                    "Legal aid application update | Settlement proposal in {org}"),
        "event": _t("{org} hearing | Client meeting with {person} | Filing deadline {org}"),
        "table": _t("Case tracker {iso} | Billing summary {quarter} | Deadlines register"),
        "report": _t("Case report: {org} | Judgment in {org} | {statute} extract | Affidavit of {person} | "
                     "Court order in {org}"),
        "slides": _t("{org} case overview"),
        "audio": _t("Voice memo: {org} | Memo after call with {person} | Debrief on {topic}"),
    },
    images=(("Photo: evidence from {org}", "Photograph of damaged property submitted as evidence in {org}.", "room"),
            ("Scan: signed statement of {person}", "Scanned page of a signed witness statement.", "document"),
            ("Photo: {place} entrance", "Entrance hall of the {place} on hearing day.", "room")),
    columns=(("case", "{org}"), ("client", "{person}"), ("stage", "{stage}"), ("next date", "{iso}"),
             ("fees", "{money}")),
    videos=(("Courtroom recording: {org}", "Hearing excerpt in {org}; counsel addresses the {topic}.", "room"),
            ("CCTV clip: {place}", "CCTV footage near the {place} showing two people arguing.", "room")),
    domain="goh-partners-law.sg", currency="S$", money=(800, 95_000, ""),
)

WORK = Theme(
    "work",
    slots={
        "person": _t("Alice Morgan | Ben Okafor | Chloe Zhang | Diego Alvarez | Fatima Noor | George Petrov"),
        "org": _t("Atlas migration | Customer portal | Billing revamp | Mobile app 2.0 | Data warehouse"),
        "place": _t("London office | Room 4B | Berlin office | the Zoom bridge | Singapore office"),
        "topic": _t("sprint planning | budget review | vendor selection | hiring plan | release checklist | "
                    "customer feedback | security audit | OKR progress | training plan | process improvement"),
        "status": _t("done | in progress | blocked | not started | at risk"),
    },
    sentences=_t(
        "{person} finished the {topic} for {org} on {date}. |"
        "{org} is {status}; {person} owns the next step. |"
        "Budget for {org} is {money}, {pct}% used so far. |"
        "Decision: move the {topic} to {date}. |"
        "Action: {person} to circulate the {topic} notes by {date}. |"
        "The team closed {num} tickets in {org} this sprint. |"
        "Risk: {org} depends on the {topic} that slipped by {num} days. |"
        "Learned about {topic} in a workshop at the {place}. |"
        "Customer satisfaction for {org} rose to {pct}%. |"
        "{person} and {person2} disagree on the scope of {org}."),
    titles={
        "note": _t("{org} status notes | Meeting notes {iso} | {topic} checklist | To-do list | "
                   "Learning notes: {topic} | Weekly log {iso}"),
        "email": _t("Re: {org} timeline | {topic} follow-up | Invitation: {topic} | FYI {org} update"),
        "event": _t("{topic} meeting | {org} review | 1:1 with {person}"),
        "table": _t("Task tracker {quarter} | {org} budget | Completed tasks"),
        "report": _t("{org} project report | {topic} policy | {quarter} department review"),
        "slides": _t("{org} kickoff deck"),
        "audio": _t("Recording: {topic} meeting"),
    },
    images=(("Whiteboard: {topic}", "Whiteboard sketch of the {topic} for {org}.", "document"),
            ("Screenshot: {org} dashboard", "Dashboard of {org} with {num} open tickets.", "screen"),
            ("Team photo at {place}", "Team of {num} people at the {place}.", "people")),
    columns=(("date", "{iso}"), ("task", "{topic}"), ("project", "{org}"), ("owner", "{person}"),
             ("status", "{status}")),
    domain="brightline.io", money=(2_000, 250_000, ""),
)

PERSONAL = Theme(
    "personal",
    slots={
        "person": _t("Maya | Leo | Grandma Rose | Coach Ibrahim | Nina | Tom | Dr. Patel"),
        "org": _t("the design studio | the running club | the watercolor class | the book club | the gym"),
        "place": _t("Lisbon | the riverside park | Kyoto | the farmers market | the beach | Paris"),
        "topic": _t("watercolor practice | half-marathon training | moving flat | job interview | budgeting | "
                    "learning Spanish | sleep schedule | cooking | career change"),
        "mood": _t("tired but happy | anxious | calm | excited | frustrated | grateful"),
    },
    sentences=_t(
        "Went to {place} with {person} on {date}; felt {mood}. |"
        "Spent {num} minutes on {topic} today. |"
        "{person} suggested I try {topic}. |"
        "Still worried about {topic}; need a plan by {date}. |"
        "Paid {money} for {topic}, over budget by {pct}%. |"
        "Met {person} at {org}; we talked about {topic}. |"
        "Ran {small} km around {place}. |"
        "Goal for this month: {topic} three times a week."),
    titles={
        "note": _t("Diary {iso} | Notes on {topic} | Learning log: {topic} | Monthly goals | Reading list"),
        "email": _t("Re: plans with {person} | {org} newsletter | Your booking in {place} | Catching up"),
        "event": _t("{topic} session | Dinner with {person} | Trip to {place}"),
        "table": _t("Fitness log {year} | Monthly budget | Habit tracker"),
        "report": _t("Course certificate: {topic} | Health check report | Lease agreement"),
        "slides": _t("{topic} plan"),
        "audio": _t("Voice memo: {topic} | Song: {place} nights | Memo for {person}"),
    },
    images=(("Trip to {place}", "Street view in {place} on a sunny afternoon.", "landscape"),
            ("Cat on the sofa", "A grey cat asleep on the sofa at home.", "cat"),
            ("Dinner with {person}", "Plates of food on a wooden table with {person}.", "people"),
            ("Watercolor study", "A watercolor painting of a lake in blue and green.", "landscape"),
            ("Fitness app screenshot", "Screenshot of a {num} km run in the fitness app.", "screen")),
    columns=(("date", "{iso}"), ("activity", "{topic}"), ("minutes", "{num}"), ("mood", "{mood}")),
    audio=(("Voice memo: {topic}", "Note to self on {date}: keep going with {topic}; {person} offered to help."),
           ("Song: {place} nights", "Home recording, piano and humming, made after a trip to {place}."),
           ("Memo for {person}", "Message for {person}: dinner on {date}, bring the photos from {place}."),
           ("Voice memo: running", "Ran {small} km around {place}; knee feels fine, next race on {date}."),
           ("Voice memo: moving flat", "Boxes packed; the van comes on {date}, deposit {money}.")),
    videos=(("Movie clip: {place}", "Clip of an old film set in {place}.", "landscape"),
            ("Home video: {person}", "Home video of {person} laughing in {place}.", "people")),
    domain="mailbox.org", money=(10, 2_000, ""),
)

FILM = Theme(
    "film",
    slots={
        "person": _t("Hana Mori | Luis Ortega | Ingrid Halvorsen | Kwame Mensah | Sofia Rossi"),
        "org": _t("The Lantern Keeper | Paper Moon River | Echoes of Kyoto | Salt and Static | The Last Orchard | "
                  "Cloud Cartographers | Night Bus to Porto | Little Robot Tamo | Winter Harbor"),
        "place": _t("Kyoto | Porto | Oslo | Accra | Naples | Lisbon"),
        "topic": _t("animated short | documentary | drama | science fiction | trailer | comedy"),
        "genre": _t("animation | drama | documentary | sci-fi | comedy | thriller"),
    },
    sentences=_t(
        "{org} ({year}), directed by {person}, is a {genre} set in {place}. |"
        "Rating: {num}/10 - the score carries the slower middle act. |"
        "{org} runs {num} minutes; watched it on {date}. |"
        "Compared with {org2}, the animation in {org} is warmer. |"
        "Review: a {genre} about memory and home, filmed in {place}. |"
        "Favourite scene: the night market sequence in {org}."),
    titles={"note": _t("Review: {org} | Watchlist"), "email": _t("Re: screening of {org}"),
            "event": _t("Screening of {org}"), "table": _t("Film list"),
            "report": _t("Film reviews {year} | Essay on {genre} films | Festival programme"),
            "slides": _t("Film club presentation {year}"), "audio": _t("Soundtrack: {org}")},
    images=(("Poster: {org}", "Poster for {org}, a {genre} by {person}.", "poster"),
            ("GIF: {org}", "Looping clip from {org}: a character waves.", "landscape")),
    columns=(("title", "{org}"), ("genre", "{genre}"), ("rating", "{num}")),
    videos=(("{org}", "Full {genre} film {org} by {person}, set in {place}.", "poster"),
            ("{org} - trailer", "Official trailer for {org}.", "landscape"),
            ("{org} - animated short", "Short animated film {org} about a small robot in {place}.", "cat")),
    domain="filmclub.net",
)

TRAVEL = Theme(
    "travel",
    slots={
        "person": _t("Ana | Kenji | Priya | Lukas"),
        "org": _t("Eiffel Tower | Colosseum | Sagrada Familia | Big Ben | Mount Fuji | Lake Kawaguchi | "
                  "campus library | graduation ceremony | apple orchard | Charles Bridge"),
        "place": _t("Paris | Rome | Barcelona | London | Fujiyoshida | Prague | the campus | the orchard"),
        "topic": _t("sunrise | golden hour | rainy afternoon | blue hour | spring blossom | autumn leaves"),
    },
    sentences=_t("Visited the {org} in {place} at {topic} on {date}. | Walked {num} km around {place} with {person}."),
    titles={"note": _t("Trip notes {place}"), "email": _t("Photos from {place}"), "event": _t("Trip to {place}"),
            "table": _t("Photo list"), "report": _t("Travel itinerary {place}"), "slides": _t("Album {place}"),
            "audio": _t("Ambient sound: {place}")},
    images=(("{org} at {topic}", "The {org} in {place} at {topic}, people in the foreground.", "landmark"),
            ("Mount Fuji from Lake Kawaguchi", "Snow-capped Mount Fuji over the lake at {topic}.", "mountain"),
            ("Graduation day with {person}", "{person} in a graduation gown on the campus lawn.", "people"),
            ("Orchard rows in {topic}", "Rows of apple trees in the orchard during {topic}.", "orchard"),
            ("Breakfast at the hostel", "Coffee and pastries on a small table in {place}.", "room"),
            ("{person} at the {org}", "{person} posing in front of the {org} at {topic}.", "people"),
            ("Old town of {place}", "Narrow streets and red roofs of {place} at {topic}.", "landmark"),
            ("Campus lawn at {topic}", "Students on the campus lawn, library in the background.", "landscape"),
            ("Fuji five lakes at {topic}", "Lake shore with Mount Fuji behind the clouds at {topic}.", "mountain")),
    columns=(("file", "{org}"), ("place", "{place}")),
    videos=(("Orchard walk at {topic}", "Slow walk between apple trees at {topic}; birdsong.", "orchard"),
            ("Farm tractor in the fields", "A tractor crossing the farm fields at {topic}.", "landscape"),
            ("Harvest day {date}", "Workers picking fruit into crates on {date}.", "orchard"),
            ("Mountain lake timelapse", "Timelapse of clouds over a mountain lake at {topic}.", "mountain")),
    domain="mail.travel",
)

PET = Theme(
    "pet",
    slots={
        "person": _t("Dr. Amelia Hart | Olivia | Marcus | Jun"),
        "org": _t("PetMart | Whisker Supplies | Happy Tails Shelter | Paws & Claws Vet Clinic"),
        "shop": _t("PetMart | Whisker Supplies"),
        "clinic": _t("Paws & Claws Vet Clinic | Riverside Animal Hospital"),
        "shelter": _t("Happy Tails Shelter | Second Chance Cat Rescue"),
        "care": _t("vaccination | dental check | weight check | flea treatment | kidney screening | annual check-up"),
        "habit": _t("scratching the sofa | coughing up hairballs | meowing at night | hiding under the bed | "
                    "chewing cables"),
        "item": _t("scratching post | kidney-care dry food | wet food | cat tree | water fountain"),
        "place": _t("the bedroom window | the balcony | the sofa | the kitchen"),
        "topic": _t("diet | vet visits | scratching | night-time meowing | weight"),
    },
    sentences=_t(
        "Shadow weighed {kg} kg at the {care} on {date}. |"
        "Dr. Amelia Hart recommended a {care}; follow-up on {date}. |"
        "Ordered {item} from {shop} for {money}. |"
        "Shadow has started {habit}; trying a new routine. |"
        "Adopted Shadow from {shelter} on {adopted}; she was about {small} months old. |"
        "Next {care} due on {date} at {clinic}. |"
        "The {item} arrived on {date}; Shadow ignored it for two days. |"
        "{person} fed Shadow while I was away; she slept on {place} all day."),
    titles={"note": _t("Shadow care notes"), "email": _t("Your order from {shop} | Appointment reminder: {care} | "
                                                        "Re: {item} delivery | Adoption follow-up from {shelter}"),
            "event": _t("Vet appointment: {care}"), "table": _t("Shadow weight log"),
            "report": _t("Vet report {iso} | Adoption certificate"), "slides": _t("Shadow album"),
            "audio": _t("Voice memo: {topic} | Memo about Shadow and {habit}")},
    images=(("Shadow on adoption day", "Shadow, a small black cat, in a carrier at {shelter} on {adopted}.", "cat"),
            ("Shadow at {place}", "Shadow stretching at {place} in the afternoon sun.", "cat"),
            ("Shadow with the {item}", "Shadow sniffing the new {item}.", "cat"),
            ("Shadow at {clinic}", "Shadow on the examination table at {clinic}.", "cat"),
            ("Shadow asleep", "Shadow curled up asleep on the bed.", "cat"),
            ("Shadow at breakfast", "Shadow eating from her bowl in the kitchen.", "cat"),
            ("Shadow playing", "Shadow chasing a feather toy on the floor.", "cat")),
    columns=(("date", "{iso}"), ("weight kg", "{kg}"), ("note", "{care}")),
    domain="mail.com", money=(15, 400, ""), world=("adopted", "clinic", "shelter"),
)

REGISTRY = Theme(
    "registry",
    slots={
        "person": _t("Tan Wei Ming | Lim Siew Ling | Rajan Pillai | Goh Boon Kiat | Nur Aisyah | Chua Hui Min"),
        "org": _t("Keystone Builders | Meridian Software | Orchid Trading | Lion City Precision | "
                  "Harbourfront Advisory | Evergreen Retail | Sunrise Fabrication | Bluewave Systems"),
        "place": _t("10 Anson Road #12-05 | 1 Raffles Place #20-61 | 50 Ubi Avenue 3 #04-11 | "
                    "18 Jurong Port Road | 3 Changi Business Park Crescent"),
        "topic": _t("annual return | change of registered address | appointment of director | share allotment"),
    },
    sentences=_t("{org} filed its {topic} on {date}."),
    titles={"note": _t("Registry notes"), "email": _t("ACRA filing {iso}"), "event": _t("Filing {topic}"),
            "table": _t("SSIC code reference | Industry groups"), "report": _t("{org} Pte. Ltd. - business profile"),
            "slides": _t("Registry overview"), "audio": _t("Registry memo")},
    images=(),
    columns=(("code", "{num}"), ("description", "{topic}")),
    domain="acra.gov.sg", currency="S$", money=(1, 500, ""),
)

STUDENT = Theme(
    "student",
    slots={
        "person": _t("Lin Wei | Prof. Helen Carter | Dr. Samuel Okoye | Ravi | Student Services"),
        "org": _t("National University | Data Science Society | Robotics Club | Green Campus Initiative"),
        "place": _t("the engineering faculty | the main library | the campus lawn | the innovation lab"),
        "topic": _t("machine learning | urban heat islands | robot path planning | statistics | database systems | "
                    "thesis defence | exchange programme | internship application"),
        "grade": _t("A | A- | B+ | A+"),
    },
    sentences=_t(
        "Lin Wei completed the {topic} course with grade {grade} on {date}. |"
        "Supervisor {person} praised the chapter on {topic}. |"
        "Presented a poster on {topic} at {place} on {date}. |"
        "Led {org} with {num} members. |"
        "Applied for the {topic} by {date}."),
    titles={"note": _t("Study notes: {topic}"), "email": _t("Re: recommendation letter | {topic} results | "
                                                            "Graduation ceremony details"),
            "event": _t("Graduation ceremony"), "table": _t("Transcript summary"),
            "report": _t("Paper: {topic} | Resume of Lin Wei | Application form: {topic} | Course syllabus: {topic} | "
                         "School guide {year} | Book excerpt: {topic} | Transcript {year}"),
            "slides": _t("Thesis defence: {topic}"), "audio": _t("Lecture recording: {topic}")},
    images=(("Graduation photo", "Lin Wei in a gown on {place}.", "people"),
            ("ID photo", "Passport-style ID photo of Lin Wei on a white background.", "people"),
            ("Poster presentation on {topic}", "Lin Wei next to a research poster at {place}.", "document"),
            ("Certificate: {topic}", "Scanned certificate for {topic}.", "document")),
    columns=(("course", "{topic}"), ("grade", "{grade}")),
    videos=(("Course video: {topic}", "Lecture recording on {topic} at {place}.", "screen"),
            ("Project demo: {topic}", "Demo of the {topic} project in {place}.", "screen")),
    domain="nus-mail.edu.sg",
)

MEMOS = Theme(
    "memos",
    slots={
        "person": _t("Mei Ling Tan | Rajesh Kumar | Coach Ibrahim | Hana | Leo"),
        "org": _t("the watercolor class | the product team | the legal team | home"),
        "case": _t("Tan v. Lim | Public Prosecutor v. Kumar | Goh v. Goh"),
        "place": _t("the studio | the riverside park | the kitchen | the office"),
        "topic": _t("daily life | watercolor learning | pet care | case debrief | meeting debrief | music | "
                    "team recording"),
        "mood": _t("tired | calm | cheerful | stressed"),
    },
    sentences=_t(
        "Recorded on {date}: thoughts about {topic}. | Reminder to call {person} about {case}. |"
        "Watercolor lesson {small}: wet-on-wet washes, keep the paper tilted. |"
        "Shadow needs her kidney diet food and a vet check on {date}. |"
        "Debrief for {case}: hearing moved to {date}, client anxious. |"
        "Team agreed to ship the release on {date}."),
    titles={"note": _t("Audio notes | Transcripts {iso}"), "email": _t("Memo"), "event": _t("Recording"),
            "table": _t("Audio list"), "report": _t("Memo report"), "slides": _t("Memos"),
            "audio": _t("Memo {iso}")},
    audio=(("Daily life memo {iso}", "Recorded on {date}. Groceries, laundry and a walk at {place}; feeling {mood}."),
           ("Watercolor lesson {small}", "Lesson {small}: wet-on-wet washes, keep the paper tilted, practise skies "
                                         "for {num} minutes."),
           ("Pet care: Shadow {iso}", "Shadow needs her kidney diet food; vet check on {date}. She weighed {kg} kg."),
           ("Case memo: {case}", "Debrief for {case}: hearing moved to {date}; client {person} worries about costs."),
           ("Meeting debrief {iso}", "Team agreed to ship the release on {date}; {person} owns the checklist."),
           ("Song: {place} nights", "Instrumental track, acoustic guitar and rain, recorded at {place}."),
           ("Team recording {iso}", "Stand-up: {num} tickets closed this week, demo on {date}, {person} presenting.")),
    images=(), columns=(("file", "{topic}"),), domain="memo.local",
)

ARCHIVE = Theme(
    "archive",
    slots={
        "person": _t("Iris Novak | Omar Haddad | Kate Lin | Paul Weber"),
        "org": _t("Project Aurora | Harbor redesign | Spring campaign | Museum audio guide"),
        "place": _t("studio A | the harbor | the museum hall | the client office"),
        "topic": _t("logo concepts | site photos | interview audio | product shots | storyboard | mood board"),
    },
    sentences=_t(
        "{org}: {topic} approved by {person} on {date}. | The {topic} for {org} lives in the media folder. |"
        "{person} recorded the interview at {place} on {date}. | Final {topic} delivered on {date}."),
    titles={"note": _t("Media log | Asset notes"), "email": _t("Re: {org} assets | {topic} delivery"),
            "event": _t("{org} review"), "table": _t("Asset list"),
            "report": _t("{org} brief | {org} asset inventory"), "slides": _t("{org} review"),
            "audio": _t("Interview with {person} | Voice note: {topic}")},
    images=(("{org} {topic}", "Draft of the {topic} for {org}.", "logo"),
            ("Site photo at {place}", "Photo taken at {place} for {org}.", "landscape"),
            ("Product shot {num}", "Product on a white table, studio light.", "room")),
    columns=(("asset", "{topic}"), ("owner", "{person}")),
    videos=(("{org} teaser", "Short teaser for {org} filmed at {place}.", "landscape"),),
    domain="aurora-studio.com",
)

THEMES = {t.name: t for t in (INVESTMENT, LEGAL, WORK, PERSONAL, FILM, TRAVEL, PET, REGISTRY, STUDENT, MEMOS, ARCHIVE)}
